"""One worker's loop over a shared study: exactly ``n_trials`` finished trials across all workers.

Budget. Trials are numbered atomically by the storage. The live trials (complete, pruned,
running, waiting) sorted by number hold the budget in their first ``n_trials`` places. A
worker runs ``study.optimize`` until optuna's ``MaxTrialsCallback`` sees ``n_trials`` live
trials; a trial that finds itself past the budget (two workers asked at once) is failed at
once with the user attribute ``surplus`` before any work, so no configuration runs twice and
none is lost.

Interrupted trials. Ctrl-C or SIGTERM during a trial saves its fit's ``last.ckpt`` and stops the
command (exit 130/143); the trial is then queued again with the same parameters and run folder
(user attributes ``run_dir`` and ``resumes``), marked ``interrupted``, so the command that
resumes the study continues that fit from its checkpoint instead of losing it as failed.

Dead workers. The storage's heartbeat marks a trial whose worker stopped beating as failed and
re-queues its parameters (``harness.studies.storage``). A worker whose budget places are all
taken therefore does not leave while trials still run elsewhere: it waits, failing stale
trials every heartbeat (``optuna.storages.fail_stale_trials``), and runs any re-queued trial.
optuna judges only trials that have a heartbeat, and its heartbeat thread writes the first one
a moment after the trial starts: a worker killed in that moment left its trial running for
ever, and every other worker waited for it. So each trial records its first heartbeat itself
before any work and is then marked ``started``; a running trial neither started nor given
parameters within the grace period is a dead worker's and is failed and queued again as a
stale one is (:func:`fail_stale`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import optuna
from optuna.exceptions import UpdateFinishedTrialError
from optuna.storages import BaseStorage, RDBStorage, fail_stale_trials
from optuna.study import MaxTrialsCallback
from optuna.trial import FrozenTrial, Trial, TrialState

from harness.errors import RunInterruptedError

LIVE = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING, TrialState.WAITING)
FINISHED = (TrialState.COMPLETE, TrialState.PRUNED)
SURPLUS_ATTR = "surplus"
INTERRUPTED_ATTR = "interrupted"  # a signal stopped this trial; it was queued again
RESUMES_ATTR = "resumes"  # the number of the interrupted trial this one continues
RUN_DIR_ATTR = "run_dir"  # the trial's fit folder (a resumed trial keeps the interrupted one's)
STARTED_ATTR = "started"  # the trial's first heartbeat is recorded: optuna judges it
RETRY_HISTORY = "retry_history"  # optuna's: the trials a re-queued stale trial continues
INTERRUPTS = (RunInterruptedError, KeyboardInterrupt)

Objective = Callable[[Trial], float | Sequence[float]]
Callback = Callable[[optuna.Study, FrozenTrial], None]


class SurplusTrialError(Exception):
    """This trial is past the study's budget; it is failed without running, unsaid (optuna's
    lines of it are dropped: ``harness.quiet``)."""

    UNSAID = True


def live_trials(study: optuna.Study) -> list[FrozenTrial]:
    """The trials holding budget places: not one left running as its job was stopped, which
    its queued continuation holds (until 2026-11-30 that continuation was past the budget)."""
    trials = study.get_trials(deepcopy=False, states=LIVE)
    return [t for t in trials if not t.user_attrs.get(INTERRUPTED_ATTR)]


def live_numbers(study: optuna.Study) -> list[int]:
    return sorted(t.number for t in live_trials(study))


def requeue_interrupted(trial: Trial) -> None:
    """Queue ``trial``'s parameters again, in its run folder, and mark it interrupted."""
    trial.set_user_attr(INTERRUPTED_ATTR, True)
    _queue_again(trial.study, trial.number, trial.params, trial.user_attrs)


def _queue_again(
    study: optuna.Study, number: int, params: dict[str, Any], user_attrs: dict[str, Any]
) -> None:
    attrs = {RESUMES_ATTR: number}
    if RUN_DIR_ATTR in user_attrs:  # a trial that trains: its fit goes on there
        attrs[RUN_DIR_ATTR] = user_attrs[RUN_DIR_ATTR]
    study.enqueue_trial(params, user_attrs=attrs)


def trial_id(storage: BaseStorage, study: optuna.Study, number: int) -> int:
    """The id in ``storage`` of ``study``'s trial ``number`` (its copies carry it privately)."""
    study_id = storage.get_study_id_from_name(study.study_name)
    return storage.get_trial_id_from_study_id_trial_number(study_id, number)


def reclaim_killed(study: optuna.Study, storage: BaseStorage, run_dirs: set[Path]) -> list[int]:
    """The running trials whose fit folder is one of ``run_dirs``, whose jobs were killed (a
    third Ctrl-C while they saved): each queued again as an interrupted trial is (unless its job
    had queued it) and failed, so the rerun continues it once, from its checkpoint, and counts
    it interrupted (until 2026-11-30 the storage's heartbeat failed it a minute later as a dead
    worker's, counted ``fail``, and two workers reclaiming at once made a surplus trial);
    returns their numbers. ``storage`` is the study's: a running trial's attribute is set
    through it, by the trial's number (the study's trials are copies)."""
    reclaimed = []
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        run_dir = trial.user_attrs.get(RUN_DIR_ATTR)
        if run_dir is None or Path(run_dir).resolve() not in run_dirs:
            continue
        if not trial.user_attrs.get(INTERRUPTED_ATTR):
            running = trial_id(storage, study, trial.number)
            storage.set_trial_user_attr(running, INTERRUPTED_ATTR, True)
            _queue_again(study, trial.number, trial.params, trial.user_attrs)
        study.tell(trial.number, state=TrialState.FAIL)
        reclaimed.append(trial.number)
    return reclaimed


def state_counts(study: optuna.Study) -> dict[str, int]:
    """The study's trials by state, as its summary counts them: a trial a signal stopped, or
    whose dead worker's trial the storage queued again, ``interrupted`` (its parameters run
    again), never ``fail``; a surplus trial (failed before it ran) not at all."""
    trials = study.get_trials(deepcopy=False)
    stopped = interrupted_numbers(study)
    states = [
        "interrupted" if t.number in stopped else t.state.name.lower()
        for t in trials
        if not t.user_attrs.get(SURPLUS_ATTR)
    ]
    return {state: states.count(state) for state in dict.fromkeys(states)}


def interrupted_numbers(study: optuna.Study) -> set[int]:
    """The numbers of the study's interrupted trials (:func:`state_counts`): a signal stopped
    them, or the storage queued a dead worker's trial again."""
    trials = study.get_trials(deepcopy=False)
    retried = {n for t in trials for n in t.system_attrs.get(RETRY_HISTORY, [])}
    return {t.number for t in trials if t.user_attrs.get(INTERRUPTED_ATTR) or t.number in retried}


def guarded(objective: Objective, n_trials: int) -> Objective:
    """``objective`` that refuses to run past the budget and queues an interrupted trial again."""

    def run(trial: Trial) -> Any:
        try:  # a signal from the trial's first moment on: queued again, not failed
            first_heartbeat(trial)
            if trial.number not in live_numbers(trial.study)[:n_trials]:
                trial.set_user_attr(SURPLUS_ATTR, True)
                budget = f"the budget of {n_trials} trials"
                raise SurplusTrialError(f"trial {trial.number} is past {budget}")
            return objective(trial)
        except INTERRUPTS:
            requeue_interrupted(trial)
            raise

    return run


def first_heartbeat(trial: Trial) -> None:
    """Record ``trial``'s heartbeat, then mark it started: from here optuna's heartbeat judges
    it, whenever its worker dies (optuna's thread writes its first heartbeat a moment later)."""
    storage = trial.storage
    if isinstance(storage, RDBStorage) and storage.get_heartbeat_interval() is not None:
        storage.record_heartbeat(trial_id(storage, trial.study, trial.number))
    trial.set_user_attr(STARTED_ATTR, True)


def fail_stale(study: optuna.Study, storage: BaseStorage) -> None:
    """Fail the trials of ``study`` (in ``storage``) whose worker stopped beating, and those
    whose worker died before their first heartbeat (neither started nor given parameters
    within the grace period), and queue them again (the storage's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        fail_stale_trials(study)
    if not isinstance(storage, RDBStorage) or storage.get_heartbeat_interval() is None:
        return
    grace = timedelta(seconds=storage.grace_period or 2 * storage.get_heartbeat_interval())
    requeue = storage.get_heartbeat_stale_trial_callback()
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        started = trial.user_attrs.get(STARTED_ATTR) or trial.params
        if started or not trial.datetime_start or datetime.now() - trial.datetime_start < grace:
            continue
        dead = trial_id(storage, study, trial.number)
        try:
            failed = storage.set_trial_state_values(dead, state=TrialState.FAIL)
        except UpdateFinishedTrialError:  # another worker failed it first
            continue
        if failed and requeue is not None:
            requeue(study, storage.get_trial(dead))


def run_worker(
    study: optuna.Study,
    storage: BaseStorage,
    objective: Objective,
    n_trials: int,
    callbacks: Sequence[Callback] = (),
    poll_s: float = 1.0,
) -> int:
    """Run trials of ``study`` (in ``storage``) until ``n_trials`` have finished; returns how
    many this worker ran.

    ``poll_s``: how often a worker with no free place checks for stale or re-queued trials
    (the storage's heartbeat interval is a good value).
    """
    if n_trials < 1:
        raise ValueError(f"--trials {n_trials}: expected a positive integer")
    ran = 0

    def count(study: optuna.Study, trial: FrozenTrial) -> None:
        nonlocal ran
        ran += trial.user_attrs.get(SURPLUS_ATTR) is None

    job = guarded(objective, n_trials)
    stop_when_full = MaxTrialsCallback(n_trials, states=LIVE)
    while True:
        fail_stale(study, storage)
        trials = live_trials(study)
        if sum(t.state in FINISHED for t in trials) >= n_trials:
            return ran
        if len(trials) < n_trials or any(t.state == TrialState.WAITING for t in trials):
            study.optimize(
                job, callbacks=[*callbacks, stop_when_full, count], catch=(SurplusTrialError,)
            )
        else:
            time.sleep(poll_s)
