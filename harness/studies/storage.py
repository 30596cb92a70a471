"""Where studies live: an SQLite file (default), any SQLAlchemy URL, or an optuna journal file.

Every worker started with the same study name and storage shares the study
(``load_if_exists``). RDB storages (SQLite, PostgreSQL, MySQL) run optuna's heartbeat: a trial
whose worker stopped beating for ``grace_period`` seconds is marked failed by the next worker
and re-queued with the same parameters (``RetryHeartbeatStaleTrialCallback``). Journal
storages have no heartbeat; ``harness.studies.workers`` fails and re-queues the running trials
of dead workers on the same host instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import warnings
from collections.abc import Iterator
from pathlib import Path

import optuna
from optuna.storages import JournalStorage, RDBStorage, RetryHeartbeatStaleTrialCallback
from optuna.storages.journal import JournalFileBackend

DEFAULT_STORAGE = "sqlite:///runs/studies/optuna.db"
JOURNAL_PREFIX = "journal:"
SQLITE_PREFIX = "sqlite:///"


def retry_callback(max_retry: int) -> RetryHeartbeatStaleTrialCallback:
    """Re-queue a failed trial with its parameters, at most ``max_retry`` times per trial."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return RetryHeartbeatStaleTrialCallback(max_retry=max_retry)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Exclusive lock on ``path`` (workers creating one SQLite file's tables at once collide)."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def open_storage(
    spec: str | None, heartbeat_s: int = 30, grace_s: int | None = None, max_retry: int = 2
) -> optuna.storages.BaseStorage:
    """``None``: the default SQLite file; ``journal:PATH``: a journal file; else an SQLAlchemy URL.

    SQLite files and journal files get their parent folder created.
    """
    spec = spec or DEFAULT_STORAGE
    if spec.startswith(JOURNAL_PREFIX):
        path = Path(spec.removeprefix(JOURNAL_PREFIX)).expanduser()
        if not path.name:
            raise ValueError(f"--storage {spec!r}: expected journal:PATH, e.g. journal:runs/s.log")
        path.parent.mkdir(parents=True, exist_ok=True)
        return JournalStorage(JournalFileBackend(str(path)))
    if "://" not in spec:
        raise ValueError(
            f"--storage {spec!r}: expected an SQLAlchemy URL (sqlite:///runs/s.db, "
            "postgresql://user@host/db) or journal:PATH"
        )
    engine_kwargs = None
    lock: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if spec.startswith(SQLITE_PREFIX):
        path = Path(spec.removeprefix(SQLITE_PREFIX)).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        engine_kwargs = {"connect_args": {"timeout": 60}}  # wait for other workers' write locks
        lock = _file_lock(path.with_name(path.name + ".lock"))
    with lock, warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return RDBStorage(
            spec,
            engine_kwargs=engine_kwargs,
            heartbeat_interval=heartbeat_s,
            grace_period=grace_s if grace_s is not None else 2 * heartbeat_s,
            heartbeat_stale_trial_callback=retry_callback(max_retry),
        )


def dashboard_command(spec: str | None) -> str:
    """The ``optuna-dashboard`` command that opens ``spec`` (journal files need the path only)."""
    spec = spec or DEFAULT_STORAGE
    target = spec.removeprefix(JOURNAL_PREFIX) if spec.startswith(JOURNAL_PREFIX) else spec
    return f"optuna-dashboard {target}"
