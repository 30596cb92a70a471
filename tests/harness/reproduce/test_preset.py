"""The reproduction preset's grid and its input errors."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from harness.cli import main
from harness.reproduce.preset import CPU_PRESET, PAPER_PRESET, PRESETS, Preset


def test_cpu_preset_covers_table_6_with_three_runs_per_cell() -> None:
    # Bi-BloSAN Table 6's six tasks; the encoders of its rows and MTSA Table 5's we register
    assert CPU_PRESET.tasks == ("cr", "mpqa", "subj", "trec", "sst1", "sst2")
    assert {"bilstm", "multi_cnn", "multi_head", "disan", "bi_blosan", "mtsa"} <= set(
        CPU_PRESET.encoders
    )
    assert PRESETS["cpu"] is CPU_PRESET
    grid = CPU_PRESET.grid()
    cells = Counter((run.task, run.encoder) for run in grid)
    assert len(cells) == 36 and set(cells.values()) == {3}
    cr = sorted(run.replicate for run in grid if (run.task, run.encoder) == ("cr", "disan"))
    trec = sorted(run.replicate for run in grid if (run.task, run.encoder) == ("trec", "disan"))
    assert cr == ["fold0", "fold1", "fold2"] and trec == ["seed0", "seed1", "seed2"]


def test_paper_preset_is_the_papers_scale() -> None:
    """Bi-BloSAN Table 6: "the mean of 10-fold cross validation" (CR, MPQA, SUBJ), "five runs"
    (TREC, SST); full width; ended by early stopping, never a step cap."""
    cells = Counter((run.task, run.encoder) for run in PAPER_PRESET.grid())
    assert cells[("cr", "disan")] == 10 and cells[("trec", "disan")] == 5
    assert "model.width_scale" not in PAPER_PRESET.overrides
    assert "model.hidden_dim" not in PAPER_PRESET.overrides
    for preset in PRESETS.values():
        assert "trainer.max_steps" not in preset.overrides


def test_preset_round_trips_through_json_fields_and_reads_old_manifests() -> None:
    tiny = Preset(tasks=("cr",), encoders=("mtsa",), seeds=2, folds=4, overrides={"a.b": 3})
    assert Preset.from_dict(tiny.to_dict()) == tiny
    old = {"tasks": ["cr"], "encoders": ["mtsa"], "runs": 3, "overrides": {}}
    assert Preset.from_dict(old) == Preset(("cr",), ("mtsa",), seeds=3, folds=3)


def test_bad_inputs_fail_fast_with_the_file_and_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("not a vector file\n")
    for argv, message in (
        (
            ["--data-dir", str(tmp_path / "missing"), "--out", str(tmp_path / "out")],
            r"--data-dir .*missing: no such folder",
        ),
        (
            ["--data-dir", str(tmp_path), "--embeddings", str(vectors), "--out", f"{tmp_path}/r"],
            # every problem at once: the folder lacks the tasks' files, the vectors are bad
            r"expected the files of tasks 'cr'[\s\S]*vectors\.txt: line 1: expected 3 finite",
        ),
        (
            ["--out", str(tmp_path / "none"), "--tables-only"],
            r"manifest\.json not found; run first",
        ),
    ):
        assert main(["reproduce", *argv]) == 2
        assert re.search(message, capsys.readouterr().err)


def test_a_part_of_the_grid_is_refused_with_tables_only(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 56j of #56, item 10: 'reproduce --tables-only --tasks trec' tabulated cr
    and trec without a word: --tables-only rebuilds the tables of every run in --out, so a part
    of the grid given with it is refused (every task, in any order, is not a part)."""
    out = tmp_path / "r"
    argv = ["reproduce", "--out", str(out), "--tables-only"]
    assert main([*argv, "--tasks", "trec", "--encoders", "disan"]) == 2
    said = "not taken with --tables-only, which rebuilds the tables of every run in --out"
    assert [line for line in capsys.readouterr().err.splitlines() if said in line] == [
        f"sanbench reproduce: --tasks trec: {said}; leave it out",
        f"sanbench reproduce: --encoders disan: {said}; leave it out",
    ]
    assert not out.exists()
    every = ",".join(reversed(CPU_PRESET.tasks))
    assert main([*argv, "--tasks", every]) == 2
    assert said not in capsys.readouterr().err  # refused only for the missing manifest


def test_a_run_option_is_refused_with_tables_only_and_a_tasks_alias_is_its_task(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 56k of #56, item 7: 'reproduce --tables-only --optimizer sgd.yaml
    --trainer.max_steps 7 --preset paper --jobs 3' rebuilt the tables without a word of them
    (the manifest's preset is tabulated); and '--tasks sst5' said 'did you mean sst2?' where
    sst5 is sst1's alias in every other command."""
    out = tmp_path / "r"
    sgd = tmp_path / "sgd.yaml"
    sgd.write_text("class_path: torch.optim.SGD\ninit_args: {lr: 0.05}\n")
    argv = ["reproduce", "--out", str(out), "--tables-only", "--optimizer", str(sgd)]
    argv += ["--trainer.max_steps", "7", "--preset", "paper", "--jobs", "3"]
    assert main(argv) == 2
    said = "not taken with --tables-only, which rebuilds the tables of every run in --out"
    lines = [line for line in capsys.readouterr().err.splitlines() if said in line]
    assert sorted(lines) == sorted(
        f"sanbench reproduce: {given}: {said}; leave it out"
        for given in ("--preset paper", "--jobs 3", "--trainer.max_steps 7", f"--optimizer {sgd}")
    )
    assert not out.exists()
    every = ",".join(task.replace("sst1", "sst5") for task in CPU_PRESET.tasks)
    assert main(["reproduce", "--out", str(out), "--tables-only", "--tasks", every]) == 2
    assert "--tasks" not in capsys.readouterr().err  # refused only for the missing manifest
    assert main(["reproduce", "--out", str(out), "--tasks", "sst5", "--data-dir", "/nonexist"]) == 2
    assert "--tasks" not in capsys.readouterr().err
    assert not out.exists()
