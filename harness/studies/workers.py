"""One worker's loop over a shared study: exactly ``n_trials`` finished trials across all workers.

Budget. Trials are numbered atomically by the storage. The live trials (complete, pruned,
running, waiting) sorted by number hold the budget in their first ``n_trials`` places; a worker
starts trials while fewer than ``n_trials`` are live or a re-queued trial waits, and a trial that
finds itself past the budget (two workers asked at once) is failed at once with the user
attribute ``surplus`` before any work, so no configuration runs twice and none is lost.

Dead workers. Each running trial records its owner (``worker`` = trial number, host, pid and
process start time). Before each trial a worker fails the running trials whose owner process on
this host no longer exists and re-queues them (``RetryHeartbeatStaleTrialCallback``); on RDB
storages optuna's heartbeat does the same for workers on any machine.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from typing import Any

import optuna
import psutil
from optuna.exceptions import UpdateFinishedTrialError
from optuna.trial import FrozenTrial, Trial, TrialState

from harness.studies.storage import retry_callback

LIVE = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING, TrialState.WAITING)
FINISHED = (TrialState.COMPLETE, TrialState.PRUNED)
OWNER_ATTR = "worker"
SURPLUS_ATTR = "surplus"

Objective = Callable[[Trial], float | Sequence[float]]


class SurplusTrialError(Exception):
    """This trial is past the study's budget; it is failed without running."""


def owner_id(trial_number: int) -> str:
    """``number@host:pid:start-time`` of this process for trial ``trial_number``."""
    process = psutil.Process()
    return f"{trial_number}@{socket.gethostname()}:{process.pid}:{process.create_time():.3f}"


def owner_is_dead(trial: FrozenTrial) -> bool:
    """True when the trial's owner ran on this host and that process is gone (or a zombie).

    An owner recorded for another trial number (inherited by a re-queued copy) says nothing.
    """
    owner = trial.user_attrs.get(OWNER_ATTR)
    if not isinstance(owner, str) or "@" not in owner:
        return False
    number, _, where = owner.partition("@")
    host, _, process = where.partition(":")
    if number != str(trial.number) or host != socket.gethostname():
        return False
    pid, _, started = process.partition(":")
    try:
        found = psutil.Process(int(pid))
        return found.status() == psutil.STATUS_ZOMBIE or f"{found.create_time():.3f}" != started
    except psutil.NoSuchProcess:
        return True


def reap_dead_workers(study: optuna.Study, max_retry: int) -> list[int]:
    """Fail and re-queue the running trials of dead local workers; returns their numbers."""
    retry = retry_callback(max_retry)
    reaped = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if not owner_is_dead(trial):
            continue
        try:
            changed = study._storage.set_trial_state_values(trial._trial_id, TrialState.FAIL)
        except UpdateFinishedTrialError:
            continue  # another worker reaped it first
        if changed:
            retry(study, study._storage.get_trial(trial._trial_id))
            reaped.append(trial.number)
    return reaped


def live_numbers(study: optuna.Study) -> list[int]:
    return sorted(t.number for t in study.get_trials(deepcopy=False, states=LIVE))


def budget_open(study: optuna.Study, n_trials: int) -> bool:
    """True while fewer than ``n_trials`` trials are live or a re-queued trial waits."""
    trials = study.get_trials(deepcopy=False, states=LIVE)
    waiting = any(t.state == TrialState.WAITING for t in trials)
    return waiting or len(trials) < n_trials


def guarded(objective: Objective, n_trials: int) -> Objective:
    """``objective`` that first records its owner and refuses to run past the budget."""

    def run(trial: Trial) -> Any:
        trial.set_user_attr(OWNER_ATTR, owner_id(trial.number))
        if trial.number not in live_numbers(trial.study)[:n_trials]:
            trial.set_user_attr(SURPLUS_ATTR, True)
            raise SurplusTrialError(f"trial {trial.number} is past the budget of {n_trials} trials")
        return objective(trial)

    return run


def run_worker(
    study: optuna.Study,
    objective: Objective,
    n_trials: int,
    max_retry: int = 2,
    callbacks: Sequence[Callable[[optuna.Study, FrozenTrial], None]] = (),
) -> int:
    """Run trials of ``study`` until the shared budget is met; returns how many this worker ran."""
    if n_trials < 1:
        raise ValueError(f"--trials must be a positive integer, not {n_trials}")
    ran = 0
    job = guarded(objective, n_trials)
    while True:
        reap_dead_workers(study, max_retry)
        if not budget_open(study, n_trials):
            return ran
        study.optimize(job, n_trials=1, callbacks=list(callbacks), catch=(SurplusTrialError,))
        ran += 1


def finished_trials(study: optuna.Study) -> list[FrozenTrial]:
    """Complete and pruned trials (the budget), in trial order."""
    return study.get_trials(deepcopy=False, states=FINISHED)
