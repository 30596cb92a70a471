"""A study worker process for the tests: ``python studies_worker.py STORAGE NAME N SLEEP LOG``.

Runs ``harness.studies.workers.run_worker`` with a cheap objective that appends its trial
number to LOG (one line per execution) after sleeping SLEEP seconds.
"""

from __future__ import annotations

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
            handle.write(f"{trial.number}\n")
        return x * x

    run_worker(study, objective, int(n_trials))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
