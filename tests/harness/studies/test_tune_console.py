"""tune's console holds sanbench's lines only: with workers launched as jobs, optuna's own
INFO line "[I ...] A new study created in RDB with name: ..." reached it (issue 54, leftover),
as the study was created before optuna's log was made quiet. A process of its own: the console
as a user sees it, on a SQLite and on a PostgreSQL storage."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "datamodules" / "fixtures" / "kim2014"
STORAGES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.mark.slow  # a real study of one trial, its worker a process of its own
@pytest.mark.parametrize("storage", STORAGES)
def test_tunes_console_holds_no_line_of_optunas(
    storage: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = (
        f"sqlite:///{tmp_path / 'st.db'}"
        if storage == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    words = ["tune", "--study", "dropout", "--task", "sst2", "--encoder", "multi_cnn"]
    words += ["--trials", "1", "--max-steps", "1", "--model.hidden_dim", "4"]
    words += ["--data-dir", str(DATA), "--out", str(tmp_path / "t"), "--storage", url]
    words += ["--launcher", "process", "--jobs", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", *words],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    console = done.stdout + done.stderr
    assert "trial 0: keep_prob = " in console, console
    assert "A new study created" not in console, console
    assert not [line for line in console.splitlines() if line.startswith(("[I ", "[W "))], console
