"""Where a trial ran (``reports.contracts.study.TRIAL_ENVIRONMENT``), set on the trial as user
attributes so that ``trials.csv`` and the study page say it per trial."""

from __future__ import annotations

import platform
from typing import Any

import optuna

from reports.contracts.study import TRIAL_ENVIRONMENT


def trial_environment(recorded: dict[str, Any]) -> dict[str, str]:
    """This machine's name and what ``recorded`` (``harness.measurement.environment``'s
    columns: a fit's ``metrics.json`` ``versions``, or taken here) says of the CPU, torch's
    threads and torch."""
    found = {"host": platform.node(), **recorded}
    return {key: str(found[key]) for key in TRIAL_ENVIRONMENT if found.get(key) is not None}


def record_environment(trial: optuna.Trial, recorded: dict[str, Any]) -> None:
    """Set :func:`trial_environment` on ``trial``."""
    for key, value in trial_environment(recorded).items():
        trial.set_user_attr(key, value)
