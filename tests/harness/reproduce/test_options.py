"""``ReproduceOptions``: a part of the preset's grid, its launcher, and what the tables cover."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.launch import LaunchOptions
from harness.reproduce import ReproduceOptions
from harness.reproduce.preset import PRESETS
from harness.reproduce.reproduce import covered
from tests.harness.problem_lines import files_lines, problem_lines


def test_a_part_keeps_the_presets_order_and_settings() -> None:
    options = ReproduceOptions(preset="paper", tasks="sst2,trec", encoders="mtsa,bilstm")
    part = options.part
    assert part.tasks == ("trec", "sst2") and part.encoders == ("bilstm", "mtsa")
    assert (part.seeds, part.folds) == (PRESETS["paper"].seeds, PRESETS["paper"].folds)
    assert {run.task for run in part.grid()} == {"trec", "sst2"}


def test_the_default_launcher_is_two_spawned_processes() -> None:
    assert ReproduceOptions().launcher == LaunchOptions("process", jobs=2)
    chosen = ReproduceOptions(launch=LaunchOptions("slurm", jobs=54, slurm_time=600)).launcher
    assert (chosen.launcher, chosen.jobs, chosen.slurm_time) == ("slurm", 54, 600)


def test_every_bad_name_is_named_at_once() -> None:
    """Each as every command names a bad name, the nearest beside it (outside check of #56,
    item 5: '--tasks: tre not in the reproduction's grid; choose among ...', no suggestion)."""
    with pytest.raises(ValueError) as error:
        ReproduceOptions(tasks="trec,snli,tre", encoders=",", threads=0)
    assert str(error.value).splitlines() == [
        "--threads 0: expected a positive integer",
        "--tasks snli: expected one of cr, mpqa, subj, trec, sst1, sst2",
        "--tasks tre: expected one of cr, mpqa, subj, trec, sst1, sst2 (did you mean trec?)",
        "--encoders: expected a comma-separated list such as trec,sst2",
    ]
    with pytest.raises(ValueError) as error:
        ReproduceOptions(encoders="Bi-BloSAN")
    assert str(error.value).endswith("(did you mean bi_blosan?)")


def test_the_tables_cover_this_part_and_every_earlier_one() -> None:
    preset = PRESETS["cpu"]
    first = ReproduceOptions(tasks="trec", encoders="disan").part
    assert covered(preset, first, None).tasks == ("trec",)
    recorded = covered(preset, first, None).to_dict()
    then = covered(preset, ReproduceOptions(tasks="cr", encoders="bilstm").part, recorded)
    assert then.tasks == ("cr", "trec") and then.encoders == ("bilstm", "disan")


def test_every_run_option_and_the_missing_manifest_are_said_with_tables_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 5x of #56, item 6: with --tables-only, --data-dir, --embeddings,
    --max-length and --encoding were taken without a word, --lr_scheduler.step_size 1 was
    echoed as '--lr_scheduler {step_size: 1}', and the missing manifest, said when alone, was
    not said beside the refused options."""
    out = tmp_path / "rpX"
    words = ["reproduce", "--tables-only", "--out", str(out), "--data-dir", str(tmp_path)]
    words += ["--embeddings", "x.txt", "--max-length", "20", "--encoding", "latin-1"]
    words += ["--model.dropout", "0.1", "--lr_scheduler.step_size", "1"]
    assert main(words) == 2
    lines = problem_lines(capsys.readouterr().err, "reproduce")
    said = "not taken with --tables-only, which rebuilds the tables of every run in --out"
    given = [f"--data-dir {tmp_path}", "--embeddings x.txt", "--encoding latin-1"]
    given += ["--max-length 20", "--model.dropout 0.1", "--lr_scheduler.step_size 1"]
    assert lines == [
        *(f"sanbench reproduce: {option}: {said}; leave it out" for option in given),
        f"sanbench reproduce: --tables-only: {out}/manifest.json not found; run first",
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_data_folder_without_the_tasks_files_says_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], recwarn: pytest.WarningsRecorder
) -> None:
    """A reproduction given an empty --data-dir and no --embeddings said 'warning: no
    --embeddings ...' six times (once per task, of data never read) above its refusal: the
    warning is said only of data that is read (and once per command: harness.quiet)."""
    from datamodules.datamodule import RandomVectorsWarning

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["reproduce", "--data-dir", str(empty), "--out", str(tmp_path / "o")]) == 2
    lines = files_lines(capsys.readouterr().err)  # the filesystem's problems: no pointer
    assert lines and all("expected the files of task" in line for line in lines), lines
    assert not [w for w in recwarn if w.category is RandomVectorsWarning]
    assert RandomVectorsWarning.ONCE_PER_COMMAND
    assert not (tmp_path / "o").exists()
