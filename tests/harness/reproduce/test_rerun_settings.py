"""A reproduction rerun with other settings than its run folders' is bad input: exit 2, one line
per way they differ, before any data is read or job launched, nothing changed (issue 54,
leftover: a smaller budget than a started run's was each job's RunFailedError, exit 1, after
the other runs had trained; over finished runs it exited 0 with their old rows)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from datamodules.datamodule import BenchmarkDataModule
from harness.cli import main

ROOT = Path(__file__).parents[3]
DATA = ["--data-dir", str(ROOT / "tests" / "datamodules" / "fixtures" / "kim2014")]
WORDS = ["reproduce", "--preset", "cpu", "--tasks", "sst2", "--encoders", "multi_cnn", *DATA]


def _state(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(folder)): (path.stat().st_mtime_ns, path.stat().st_size)
        for path in sorted(folder.rglob("*"))
    }


@pytest.mark.slow  # three short runs first
def test_a_smaller_budget_than_the_runs_is_one_line_before_any_data_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    os.chdir(tmp_path)
    assert main([*WORDS, "--trainer.max_steps", "2", "--out", "o"]) == 0
    capsys.readouterr()
    before = _state(tmp_path / "o")

    def parsed(*_: object) -> None:
        raise AssertionError("a data file was read")

    monkeypatch.setattr(BenchmarkDataModule, "_prepare", parsed)
    assert main([*WORDS, "--trainer.max_steps", "1", "--out", "o"]) == 2
    lines = capsys.readouterr().err.splitlines()  # bad input of the folder: no help pointer
    assert len(lines) == 1, lines
    assert lines[0].startswith("sanbench reproduce: o/runs/sst2/multi_cnn/seed0 and 2 more run(s)")
    assert "trainer.max_steps: 2 there, 1 now, finished" in lines[0], lines
    assert _state(tmp_path / "o") == before
