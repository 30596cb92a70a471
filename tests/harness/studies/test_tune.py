"""``sanbench tune --launcher``: which worker jobs a rerun launches (harness.studies.tune).
In-process, with ``launch`` replaced by a recorder: no job starts."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import harness.launch
from harness.cli import main
from harness.studies import block_length_memory


@pytest.fixture(autouse=True)
def measured_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trial's peak is a constant, not a measurement in a process of its own (24 s)."""
    monkeypatch.setattr(block_length_memory, "peak_forward_mb", lambda *args: 1.0)


def study(tmp_path: Path, trials: int) -> list[str]:
    storage = f"sqlite:///{tmp_path / 's.db'}"
    argv = ["tune", "--study", "block-length-memory", "--lengths", "4", "--batch-size", "2"]
    argv += ["--dim", "8", "--trials", str(trials), "--storage", storage, "--study-name", "s"]
    return [*argv, "--out", str(tmp_path / "study")]


def launched(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """``main(argv)``'s exit status and how many worker jobs it started (each call is recorded,
    none run)."""
    calls: list[Any] = []

    def record(jobs: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
        calls.extend(jobs)
        return []

    monkeypatch.setattr(harness.launch, "launch", record)
    status = main(argv)
    return status, len(calls)


@pytest.mark.slow  # four in-process commands: 7 CPU-s
def test_a_finished_study_launches_no_worker_and_other_settings_none_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rerun of a finished study started its workers (``--launcher local --jobs 2``: 24 CPU-s
    against 7 in this process), each to find every trial done."""
    assert main(study(tmp_path, 1)) == 0  # its one trial, here
    workers = ["--launcher", "local", "--jobs", "2"]
    assert launched([*study(tmp_path, 1), *workers], monkeypatch) == (0, 0)
    assert "no worker to launch" in capsys.readouterr().out
    # a larger budget has trials left: every worker asked for starts
    assert launched([*study(tmp_path, 2), *workers], monkeypatch) == (0, 2)
    # other settings are refused before any worker starts (the workers refused them)
    assert launched([*study(tmp_path, 1), "--dim", "16", *workers], monkeypatch) == (2, 0)
    assert "other settings" in capsys.readouterr().err


@pytest.mark.slow  # trains one 2-step trial: about 6 CPU-s
def test_a_finished_study_rerun_reads_no_data(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check b56c of #56, item 2: ``tune --config runs/t1/tune-config.yaml`` of a study
    with every trial finished read TREC again (its Windows-1252 warning), then said 'continuing,
    2 trials already finished'; a finished fit and suite read nothing. Here its training file is
    gone by the rerun: read, it would be refused."""
    data = tmp_path / "data"
    shutil.copytree(trec_dir, data)
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"]
    argv += ["--trials", "1", "--max-steps", "2", "--model.hidden_dim", "4"]
    argv += ["--data-dir", str(data), "--out", str(tmp_path / "study")]
    assert main(argv) == 0
    (data / "TREC.train.all").unlink()
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    assert "continuing, 1 trials already finished" in capsys.readouterr().out
    assert main([*argv[:-2], "--out", str(tmp_path / "other")]) == 2  # a new study reads it
    assert "TREC.train.all" in capsys.readouterr().err
