"""Shared studies: several worker processes, exact trial budgets, dead workers' trials retried."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from harness.studies.storage import open_storage
from harness.studies.workers import SURPLUS_ATTR

WORKER = Path(__file__).with_name("studies_worker.py")
ROOT = Path(__file__).resolve().parents[2]


def _storages(tmp_path: Path) -> dict[str, str]:
    return {
        "sqlite": f"sqlite:///{tmp_path / 'studies.db'}",
        "journal": f"journal:{tmp_path / 'studies.journal'}",
    }


def _start(storage: str, name: str, n: int, sleep: float, log: Path) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(WORKER), storage, name, str(n), str(sleep), str(log)]
    return subprocess.Popen(command, env=env, cwd=ROOT)


def _load(storage: str, name: str) -> optuna.Study:
    return optuna.load_study(study_name=name, storage=open_storage(storage))


def _executions(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_two_workers_finish_exactly_the_budget(tmp_path: Path, kind: str) -> None:
    storage, log, n = _storages(tmp_path)[kind], tmp_path / "ran.log", 8
    workers = [_start(storage, "shared", n, 0.05, log) for _ in range(2)]
    assert [w.wait(timeout=120) for w in workers] == [0, 0]
    study = _load(storage, "shared")
    complete = study.get_trials(states=(TrialState.COMPLETE,))
    assert len(complete) == n
    # every objective execution belongs to exactly one completed trial: none lost, none twice
    assert sorted(_executions(log)) == sorted(t.number for t in complete)
    others = [t for t in study.trials if t.state != TrialState.COMPLETE]
    assert all(t.user_attrs.get(SURPLUS_ATTR) for t in others)
    owners = {t.user_attrs["worker"].split(":")[1] for t in complete}
    assert len(owners) == 2  # both processes did work


def _wait_running(storage: str, name: str, timeout: float = 60.0) -> optuna.trial.FrozenTrial:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            running = _load(storage, name).get_trials(states=(TrialState.RUNNING,))
        except KeyError:  # the worker has not created the study yet
            running = []
        if running and "worker" in running[0].user_attrs and running[0].params:
            return running[0]
        time.sleep(0.2)
    raise AssertionError("no trial started running with its parameters")


@pytest.mark.parametrize("kind", ["sqlite", "journal"])
def test_killed_worker_trial_is_failed_and_retried(tmp_path: Path, kind: str) -> None:
    storage, log, n = _storages(tmp_path)[kind], tmp_path / "ran.log", 3
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
