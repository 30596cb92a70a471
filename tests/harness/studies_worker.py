"""A study worker process for the tests: ``python studies_worker.py STORAGE NAME N SLEEP LOG``.

Runs ``harness.studies.workers.run_worker`` with a cheap objective that appends
``trial-number pid`` to LOG (one line per execution) after sleeping SLEEP seconds. The storage
is opened here, so workers started together also race on creating a fresh schema.
"""

from __future__ import annotations

import os
import sys
import time

import optuna

from harness.studies.storage import open_storage
from harness.studies.workers import run_worker


def main(storage: str, name: str, n_trials: str, sleep: str, log: str) -> int:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(
        study_name=name,
        storage=open_storage(storage, heartbeat_s=1, grace_s=2),
        sampler=optuna.samplers.RandomSampler(),
        load_if_exists=True,
    )

    def objective(trial: optuna.Trial) -> float:
        x = trial.suggest_float("x", -1.0, 1.0)
        time.sleep(float(sleep))
        with open(log, "a") as handle:
            handle.write(f"{trial.number} {os.getpid()}\n")
        return x * x

    run_worker(study, objective, int(n_trials), poll_s=0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
