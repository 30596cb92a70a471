"""No process of sanbench outlives its command (issue 54 leftovers, item 3): after a SIGTERM to
``suite`` or ``reproduce``, in this process or with ``--launcher process``, every process the
command started (its jobs, multiprocessing's fork server and resource tracker, DataLoader
workers) has ended when the command exits. Real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "datamodules" / "fixtures"
SUITE = [
    sys.executable, "-m", "harness.cli", "suite", "--tasks", "sst2", "--encoders", "multi_cnn",
    "--seeds", "2", "--data-dir", str(FIXTURES),
    "--embeddings", str(FIXTURES / "vectors" / "tiny.glove.txt"),
    # training that only a signal ends: no validation, hence no early stopping
    "--max-steps", "1000000", "--max-epochs", "1000000",
    "--trainer.check_val_every_n_epoch", "1000000",
]  # fmt: skip
REPRODUCE = [sys.executable, "-m", "tests.harness.fixtures.reproduce_interrupted"]
PROCESSES = ["--launcher", "process", "--jobs", "2"]
COMMANDS = {
    "suite": lambda out: [*SUITE, "--out", str(out)],
    "suite --launcher process": lambda out: [*SUITE, *PROCESSES, "--out", str(out)],
    "reproduce": lambda out: [*REPRODUCE, str(out), "--tasks", "cr"],
    "reproduce --launcher process": lambda out: [*REPRODUCE, str(out), "--tasks", "cr", *PROCESSES],
}


def _training(out: Path) -> bool:
    """True once a run holds its folder's lock (its fit has started)."""
    return any(path.read_text().strip() for path in out.glob("runs/*/*/*/.sanbench.lock.pid"))


def _alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


def _in_training(command: str, tmp_path: Path) -> tuple[subprocess.Popen, list[psutil.Process]]:
    """``command`` started with its output in ``tmp_path`` (``out``, ``err.txt``), once a run
    trains: the process and every process it has started."""
    out = tmp_path / "out"
    # files, not pipes: a process left running would hold a pipe open after the command's end
    with (tmp_path / "out.txt").open("w") as stdout, (tmp_path / "err.txt").open("w") as stderr:
        started = subprocess.Popen(
            COMMANDS[command](out), cwd=ROOT, stdout=stdout, stderr=stderr,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    deadline = time.monotonic() + 300
    while not _training(out) and time.monotonic() < deadline:
        assert started.poll() is None, (tmp_path / "err.txt").read_text()
        time.sleep(0.2)
    time.sleep(1)  # in training
    return started, psutil.Process(started.pid).children(recursive=True)


def _left(processes: list[psutil.Process]) -> list[tuple[int, str]]:
    """The processes of ``processes`` still running, each killed (nothing outlives the test)."""
    left = [(process.pid, " ".join(process.cmdline())[:200]) for process in _alive(processes)]
    for process in _alive(processes):
        process.kill()
    return left


@pytest.mark.slow  # real processes, each a command training until it is stopped
@pytest.mark.parametrize("command", COMMANDS)
def test_no_process_outlives_a_command_stopped_by_sigterm(command: str, tmp_path: Path) -> None:
    """On 65797ac a fork-server process of ``--launcher process`` lingered about 3 s after the
    command had exited 143."""
    started, children = _in_training(command, tmp_path)
    started.send_signal(signal.SIGTERM)
    started.wait(timeout=300)
    left = _left(children)
    assert started.returncode == 128 + signal.SIGTERM, (tmp_path / "err.txt").read_text()
    assert left == []


@pytest.mark.slow  # real processes: a suite's jobs training until their command is killed
def test_the_jobs_of_a_killed_command_save_and_end(tmp_path: Path) -> None:
    """Short outside check 54h, item 1: after a ``kill -9`` of ``suite --launcher process
    --jobs 2`` (or ``tune``), its jobs trained on with nobody to report to, and started the
    grid's next cells. Now each job, seeing its command gone, sends itself SIGTERM: it saves
    its run and ends."""
    started, children = _in_training("suite --launcher process", tmp_path)
    started.kill()
    started.wait(timeout=30)
    psutil.wait_procs(_alive(children), timeout=120)
    assert _left(children) == []
    assert list((tmp_path / "out").glob("runs/*/*/*/checkpoints/last.ckpt"))  # a job saved
