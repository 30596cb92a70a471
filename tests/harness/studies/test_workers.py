"""Shared studies on SQLite and on a real PostgreSQL server: several worker processes started
together, exact trial budgets, a killed worker's trial failed by the heartbeat and retried."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import optuna
import pytest
from optuna.storages import RDBStorage
from optuna.trial import TrialState

from harness.studies import workers
from harness.studies.storage import open_storage
from harness.studies.workers import (
    RESUMES_ATTR,
    RUN_DIR_ATTR,
    STARTED_ATTR,
    SURPLUS_ATTR,
    fail_stale,
    reclaim_killed,
    requeue_interrupted,
    run_worker,
    state_counts,
)

WORKER = Path(__file__).resolve().parents[1] / "fixtures" / "studies_worker.py"
ROOT = Path(__file__).resolve().parents[3]
STORAGES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=STORAGES)
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh storage: a new SQLite file or a new database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'studies.db'}"
    return request.getfixturevalue("postgres_url")


def _start(
    storage: str, name: str, n: int, sleep: float, log: Path, peers: int = 1
) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(WORKER), storage, name, str(n), str(sleep), str(log), str(peers)]
    return subprocess.Popen(command, env=env, cwd=ROOT)


def _load(storage: str, name: str) -> optuna.Study:
    return optuna.load_study(study_name=name, storage=open_storage(storage))


def _executions(log: Path) -> list[tuple[int, int]]:
    """``(trial number, worker pid)`` of every objective execution."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [(int(number), int(pid)) for number, pid in (line.split() for line in lines)]


@pytest.mark.slow
def test_three_workers_started_together_finish_exactly_the_budget(
    tmp_path: Path, storage: str
) -> None:
    log, n = tmp_path / "ran.log", 9
    workers = [_start(storage, "shared", n, 0.1, log, peers=3) for _ in range(3)]
    # no worker is lost to the race on creating a fresh schema
    assert [w.wait(timeout=180) for w in workers] == [0, 0, 0]
    study = _load(storage, "shared")
    complete = study.get_trials(states=(TrialState.COMPLETE,))
    assert len(complete) == n
    executions = _executions(log)
    # every objective execution belongs to exactly one completed trial: none lost, none twice
    assert sorted(number for number, _ in executions) == sorted(t.number for t in complete)
    others = [t for t in study.trials if t.state != TrialState.COMPLETE]
    assert all(t.user_attrs.get(SURPLUS_ATTR) for t in others)
    assert len({pid for _, pid in executions}) >= 2  # the work was shared


def _wait_running(storage: str, name: str, timeout: float = 60.0) -> optuna.trial.FrozenTrial:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            running = _load(storage, name).get_trials(states=(TrialState.RUNNING,))
        except KeyError:  # the worker has not created the study yet
            running = []
        if running and running[0].params:
            return running[0]
        time.sleep(0.2)
    raise AssertionError("no trial started running with its parameters")


@pytest.mark.slow
def test_killed_worker_trial_is_failed_by_heartbeat_and_retried(
    tmp_path: Path, storage: str
) -> None:
    log, n = tmp_path / "ran.log", 3
    victim = _start(storage, "crash", n, 60.0, log)
    killed = _wait_running(storage, "crash")
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=30)
    restarted = _start(storage, "crash", n, 0.0, log)
    assert restarted.wait(timeout=120) == 0
    study = _load(storage, "crash")
    failed = study.get_trials(states=(TrialState.FAIL,))
    complete = study.get_trials(states=(TrialState.COMPLETE,))
    assert [t.number for t in failed] == [killed.number]
    assert len(complete) == n
    retried = [t for t in complete if t.system_attrs.get("failed_trial") == killed.number]
    assert len(retried) == 1
    assert retried[0].params == failed[0].params  # the same configuration, re-run
    assert not study.get_trials(states=(TrialState.RUNNING, TrialState.WAITING))
    assert killed.number not in [number for number, _ in _executions(log)]


def test_a_trial_left_running_before_its_first_heartbeat_is_failed_and_run_again(
    tmp_path: Path, storage: str
) -> None:
    """CI at 4880ee4 (the restarted worker waited past 120 s): a worker killed between optuna's
    ask and its trial's first heartbeat (written a moment later by optuna's thread) left a trial
    no worker judged stale (optuna judges only trials with a heartbeat): a study whose budget it
    held waited for it for ever. Each trial now records its first heartbeat before its objective
    runs, and a trial with none, no parameter and past the grace period is failed and queued
    again, counted interrupted. Fails first on sqlite and postgresql."""
    opened = open_storage(storage, heartbeat_s=1, grace_s=1)
    study = optuna.create_study(study_name="unborn", storage=opened)
    with warnings.catch_warnings():  # "heartbeat ... supposed to be used with Study.optimize"
        warnings.simplefilter("ignore", UserWarning)
        study.ask()  # the dead worker's trial: running, no heartbeat, no parameter
    time.sleep(1.5)  # past the grace period
    worker = threading.Thread(
        target=run_worker,
        args=(study, opened, lambda trial: trial.suggest_float("x", 0.0, 1.0), 1),
        kwargs={"poll_s": 0.1},
        daemon=True,
    )
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the worker waited for a trial no worker runs"
    assert [t.state for t in study.get_trials()] == [TrialState.FAIL, TrialState.COMPLETE]
    assert state_counts(study) == {"interrupted": 1, "complete": 1}


def test_a_running_trial_of_a_live_worker_is_never_failed_before_its_heartbeat_stops(
    tmp_path: Path,
) -> None:
    """The judge of trials with no heartbeat leaves alone a trial that started (its first
    heartbeat recorded) or has its parameters, however long it has run."""
    opened = open_storage(f"sqlite:///{tmp_path / 's.db'}", heartbeat_s=1, grace_s=1)
    study = optuna.create_study(study_name="alive", storage=opened)
    with warnings.catch_warnings():  # "heartbeat ... supposed to be used with Study.optimize"
        warnings.simplefilter("ignore", UserWarning)
        with_param = study.ask({"x": optuna.distributions.FloatDistribution(0.0, 1.0)})
        started = study.ask()
    started.set_user_attr(STARTED_ATTR, True)
    time.sleep(1.5)
    fail_stale(study, opened)
    running = study.get_trials(states=(TrialState.RUNNING,))
    assert [t.number for t in running] == [with_param.number, started.number]


def _left_running(
    storage: str, run_dir: Path, requeued: bool, heartbeat_s: int = 60
) -> tuple[optuna.Study, RDBStorage]:
    """A study whose trial 0 is left running, its heartbeat recorded, as a kill of its job
    leaves it: killed as its fit saved (``requeued``: after its job had queued it again); and
    its storage."""
    opened = open_storage(storage, heartbeat_s=heartbeat_s, grace_s=1)
    study = optuna.create_study(study_name="killed", storage=opened)
    with warnings.catch_warnings():  # "heartbeat ... supposed to be used with Study.optimize"
        warnings.simplefilter("ignore", UserWarning)
        trial = study.ask({"x": optuna.distributions.FloatDistribution(0.0, 1.0)})
    trial.set_user_attr(RUN_DIR_ATTR, str(run_dir))
    study_id = opened.get_study_id_from_name("killed")
    opened.record_heartbeat(opened.get_trial_id_from_study_id_trial_number(study_id, trial.number))
    if requeued:
        requeue_interrupted(trial)
    return study, opened


def _continued(study: optuna.Study, storage: RDBStorage) -> list[optuna.trial.FrozenTrial]:
    """The study's budget of one trial finished by a worker; its trials."""
    run_worker(study, storage, lambda trial: trial.suggest_float("x", 0.0, 1.0), 1, poll_s=0.1)
    return study.get_trials()


@pytest.mark.parametrize("requeued", [False, True])
def test_a_trial_whose_job_was_killed_continues_once_counted_interrupted(
    tmp_path: Path, requeued: bool
) -> None:
    """Outside check 54l, item 6: a trial whose job a third Ctrl-C killed as it saved, left
    running, is queued again by the command (not a minute later by the heartbeat, as a dead
    worker's), so the rerun continues it once, in its folder, and counts it interrupted."""
    run_dir = tmp_path / "trials" / "0000"
    study, storage = _left_running(f"sqlite:///{tmp_path / 's.db'}", run_dir, requeued)
    assert reclaim_killed(study, storage, {(tmp_path / "other").resolve()}) == []
    assert reclaim_killed(study, storage, {run_dir.resolve()}) == [0]
    killed, continued = _continued(study, storage)
    assert continued.params == killed.params
    assert continued.user_attrs[RESUMES_ATTR] == 0
    assert continued.user_attrs[RUN_DIR_ATTR] == str(run_dir)
    assert state_counts(study) == {"interrupted": 1, "complete": 1}


@pytest.mark.parametrize("requeued", [False, True])
def test_a_stale_trial_is_continued_once_and_counted_interrupted(
    tmp_path: Path, requeued: bool
) -> None:
    """Outside check 54l, item 6: a trial left running (its command killed too) that the
    heartbeat fails was counted ``fail`` ('5 trial(s): 3 fail, 2 complete' where nothing
    failed), and one its job had queued again as it was killed was queued a second time (a
    surplus trial); now it is continued once, counted interrupted."""
    run_dir = tmp_path / "trials" / "0000"
    study, storage = _left_running(
        f"sqlite:///{tmp_path / 's.db'}", run_dir, requeued, heartbeat_s=1
    )
    time.sleep(1.5)  # past the grace period: stale
    trials = _continued(study, storage)
    assert len(trials) == 2
    assert trials[1].params == trials[0].params
    assert trials[1].user_attrs[RESUMES_ATTR] == 0
    assert state_counts(study) == {"interrupted": 1, "complete": 1}


def test_a_trial_queued_again_as_its_job_was_killed_is_within_the_budget(tmp_path: Path) -> None:
    """Outside check 54l, item 6: a trial whose job was killed after it queued it again, left
    running (not stale yet), held the budget's place, so its continuation was failed as
    surplus and the study sampled a new trial in its stead; its continuation runs."""
    run_dir = tmp_path / "trials" / "0000"
    study, storage = _left_running(f"sqlite:///{tmp_path / 's.db'}", run_dir, requeued=True)
    trials = _continued(study, storage)
    assert [t.state for t in trials] == [TrialState.RUNNING, TrialState.COMPLETE]
    assert trials[1].params == trials[0].params


def test_a_signal_before_the_objective_runs_counts_the_trial_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 7y item 5: a job stopped by its command's SIGTERM as its trial checked
    the budget (before the objective ran) left the trial failed, counted ``fail`` ('1 fail, 6
    complete' where nothing failed); it is queued again and counted interrupted."""
    opened = open_storage(f"sqlite:///{tmp_path / 's.db'}")
    study = optuna.create_study(study_name="stopped", storage=opened)

    def stopped(study: optuna.Study) -> list[int]:
        raise KeyboardInterrupt

    monkeypatch.setattr(workers, "live_numbers", stopped)
    with pytest.raises(KeyboardInterrupt):
        run_worker(study, opened, lambda trial: trial.suggest_float("x", 0.0, 1.0), 1)
    monkeypatch.undo()
    assert state_counts(study) == {"interrupted": 1, "waiting": 1}
    _continued(study, opened)
    assert state_counts(study) == {"interrupted": 1, "complete": 1}
