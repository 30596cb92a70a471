"""A study worker process for the tests:
``python studies_worker.py STORAGE NAME N SLEEP LOG [PEERS]``.

Runs ``harness.studies.workers.run_worker`` with a cheap objective that appends
``trial-number pid`` to LOG (one line per execution) after sleeping SLEEP seconds. With PEERS,
the worker first waits until PEERS workers have started (each appends its pid to LOG.started),
so that however slowly each imports its libraries, they open the storage together and race on
creating a fresh schema; and its first trial waits until a second worker runs one too (pids in
LOG.running), so that on a loaded machine the trials are still shared.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import optuna

from harness.studies.storage import open_storage
from harness.studies.workers import run_worker


def _meet(file: Path, count: int, timeout: float = 120.0) -> None:
    """Append this pid to ``file``, then wait until ``count`` pids are there."""
    with open(file, "a") as handle:
        handle.write(f"{os.getpid()}\n")
    deadline = time.monotonic() + timeout
    while len(file.read_text().split()) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"only {file.read_text().split()} of {count} workers in {file}")
        time.sleep(0.05)


def main(storage: str, name: str, n_trials: str, sleep: str, log: str, peers: str = "1") -> int:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    _meet(Path(log).with_suffix(".started"), int(peers))
    first = True
    study = optuna.create_study(
        study_name=name,
        storage=open_storage(storage, heartbeat_s=1, grace_s=2),
        sampler=optuna.samplers.RandomSampler(),
        load_if_exists=True,
    )

    def objective(trial: optuna.Trial) -> float:
        nonlocal first
        x = trial.suggest_float("x", -1.0, 1.0)
        if first and int(peers) > 1:  # a worker's first trial waits for a second one's
            _meet(Path(log).with_suffix(".running"), 2)
        first = False
        time.sleep(float(sleep))
        with open(log, "a") as handle:
            handle.write(f"{trial.number} {os.getpid()}\n")
        return x * x

    run_worker(study, objective, int(n_trials), poll_s=0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
