"""A suite rerun over run folders made with other settings is bad input, however its runs are
launched: exit 2 naming every such run, before any data is read or job launched, nothing
changed (issue 54, outside check 54k items 1 and 2: with ``--launcher process`` a finished
folder given another budget said 'every run is done ... no job to launch', exited 0 and
rewrote manifest.json's overrides; with new cells too, a job died naming one run, exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from datamodules.datamodule import BenchmarkDataModule
from harness.cli import main
from harness.suite.grid import Shard, expand_grid
from harness.suite.runner import other_settings_problems, run_shard, settings_problems
from tests.harness.suite.test_runner import ConfigWritingFit


def _state(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(folder)): (path.stat().st_mtime_ns, path.stat().st_size)
        for path in sorted(folder.rglob("*"))
    }


@pytest.mark.parametrize(
    ("seeds", "launcher"),
    [("2", ["--launcher", "process", "--jobs", "2"]), ("3", ["--launcher", "process"]), ("3", [])],
)
def test_a_rerun_with_another_budget_names_every_run_before_any_job(
    trec_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    seeds: str,
    launcher: list[str],
) -> None:
    out = tmp_path / "s"
    overrides = {"trainer.max_steps": 3}
    run_shard(
        expand_grid(["trec"], ["multi_cnn"], 2), shard=Shard(), out_dir=out,
        fit=ConfigWritingFit(), data_dir=trec_dir, embeddings=None, overrides=overrides,
        log=lambda _: None,
    )  # fmt: skip
    before = _state(out)

    def parsed(*_: object) -> None:
        raise AssertionError("a data file was read")

    monkeypatch.setattr(BenchmarkDataModule, "_prepare", parsed)
    words = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--seeds", seeds]
    words += ["--data-dir", str(trec_dir), "--out", str(out), "--max-steps", "5", *launcher]
    capsys.readouterr()
    assert main(words) == 2
    lines = capsys.readouterr().err.splitlines()
    for seed in ("seed0", "seed1"):  # each run on its line, values as written
        assert any(
            f"{out / 'runs' / 'trec' / 'multi_cnn' / seed}: finished with " in line
            and "trainer.max_steps: 3 there, 5 now" in line
            for line in lines
        ), lines
    assert "another --out" in lines[-1], lines
    assert _state(out) == before  # no manifest, no jobs/, no table


def test_an_option_not_given_now_is_said_not_set(trec_dir: Path, tmp_path: Path) -> None:
    """Outside check 54k item 5: a rerun without the folder's --max-steps said
    'trainer.max_steps: 3 there, -1 now' (Lightning's default), and reproduce's line ended
    'beside these settings';' with a stray quote."""
    runs = expand_grid(["trec"], ["multi_cnn"], 2)
    run_shard(
        runs, shard=Shard(), out_dir=tmp_path, fit=ConfigWritingFit(), data_dir=trec_dir,
        embeddings=None, overrides={"trainer.max_steps": 3}, log=lambda _: None,
    )  # fmt: skip
    suite = settings_problems(runs, tmp_path, trec_dir, None, {})
    grouped = other_settings_problems(runs, tmp_path, trec_dir, None, {})
    assert len(suite) == 3 and len(grouped) == 1, (suite, grouped)
    for line in [*suite[:2], *grouped]:
        assert "trainer.max_steps: 3 there, not set now" in line, line
    assert "'" not in grouped[0], grouped


def test_an_option_given_at_lightnings_default_is_the_same_setting(
    trec_dir: Path, tmp_path: Path
) -> None:
    """Outside check 54l item 4: over runs made without it, '--limit-val-batches 1.0' (or
    '--trainer.limit_test_batches 1.0'), Lightning's own default, was refused: 'not set there,
    1 now'. A limit of 1 (an int: one batch) is another setting still."""
    runs = expand_grid(["trec"], ["multi_cnn"], 1)
    run_shard(
        runs, shard=Shard(), out_dir=tmp_path, fit=ConfigWritingFit(), data_dir=trec_dir,
        embeddings=None, overrides={"trainer.max_steps": 3}, log=lambda _: None,
    )  # fmt: skip
    for given in ({"trainer.limit_val_batches": 1.0}, {"trainer.limit_test_batches": 1.0}):
        overrides = {"trainer.max_steps": 3, **given}
        assert settings_problems(runs, tmp_path, trec_dir, None, overrides) == [], given
    one_batch = {"trainer.max_steps": 3, "trainer.limit_val_batches": 1}
    said = settings_problems(runs, tmp_path, trec_dir, None, one_batch)
    assert "trainer.limit_val_batches: not set there, 1 now" in said[0], said
    made_with = tmp_path / "made-with"  # the mirror: made with 1.0, rerun without it
    whole = {"trainer.max_steps": 3, "trainer.limit_val_batches": 1.0}
    run_shard(
        runs, shard=Shard(), out_dir=made_with, fit=ConfigWritingFit(), data_dir=trec_dir,
        embeddings=None, overrides=whole, log=lambda _: None,
    )  # fmt: skip
    overrides = {"trainer.max_steps": 3}
    assert settings_problems(runs, made_with, trec_dir, None, overrides) == []
