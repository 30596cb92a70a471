"""SIGTERM to a command whose jobs run stops them as a Ctrl-C does (issue #54): each job gets
the signal once and is waited for, one line says what stopped and how to resume, exit 143."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "datamodules" / "fixtures"


def _job_pids(out: Path) -> list[int]:
    """The pids of the jobs training, from the lock each job's run holds."""
    locks = sorted((out / "runs").glob("*/*/*/.sanbench.lock.pid"))
    return [int(text) for path in locks if (text := path.read_text().strip())]


@pytest.mark.slow
def test_sigterm_to_a_suite_stops_its_jobs_and_says_how_to_resume(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    command = [sys.executable, "-m", "harness.cli", "suite", "--tasks", "sst2"]
    command += ["--encoders", "multi_cnn", "--seeds", "2", "--launcher", "process", "--jobs", "2"]
    command += ["--data-dir", str(FIXTURES), "--out", str(out)]
    command += ["--embeddings", str(FIXTURES / "vectors" / "tiny.glove.txt")]
    # training that only a signal ends: no validation, hence no early stopping
    command += ["--max-steps", "1000000", "--max-epochs", "1000000"]
    command += ["--trainer.check_val_every_n_epoch", "1000000"]
    # files, not pipes: jobs left running would hold a pipe open after the command's end
    with (tmp_path / "out").open("w") as stdout, (tmp_path / "err").open("w") as stderr:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=stdout, stderr=stderr,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    deadline = time.monotonic() + 180
    while len(pids := _job_pids(out)) < 2 and time.monotonic() < deadline:
        assert process.poll() is None, (tmp_path / "err").read_text()
        time.sleep(0.2)
    jobs = [psutil.Process(pid) for pid in pids]
    time.sleep(1)  # both jobs in training
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=300)
    still_running = [
        job for job in jobs if job.is_running() and job.status() != psutil.STATUS_ZOMBIE
    ]
    for job in still_running:  # no orphan outlives the test
        job.kill()
    stdout, stderr = (tmp_path / "out").read_text(), (tmp_path / "err").read_text()
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert not still_running, f"jobs left running: {still_running}"
    # SIGTERM's word (4292a2b); a job still reading its data when the signal came cut nothing
    saved = r"(their runs saved|none was cut short|1 with their runs saved, 1 outside their work)"
    assert re.search(rf"terminated: 2 of 2 jobs stopped, {saved}", stderr), stderr
    assert " && sanbench suite --tasks sst2" in stderr.split("resume with: cd ", 1)[1], stderr
    assert "Traceback" not in stdout + stderr
