"""Where studies live: an SQLite file (default) or a database server (PostgreSQL, MySQL).

Every worker started with the same study name and storage shares the study
(``load_if_exists``). Storages are optuna ``RDBStorage`` with its heartbeat on: a trial whose
worker stopped beating for ``grace_period`` seconds is failed by the next worker that looks
(``optuna.storages.fail_stale_trials``) and re-queued with the same parameters
(``RetryHeartbeatStaleTrialCallback``), wherever that worker ran. Journal files are not supported:
they have no heartbeat, so a worker dying on another machine would leave its trial running.

Workers that start at the same moment on a fresh database all try to create optuna's schema;
on PostgreSQL the losers die on ``CREATE TYPE studydirection`` (duplicate type) and on SQLite
on "table already exists". Schema creation is therefore serialised: a session-level advisory
lock on PostgreSQL, a lock file beside an SQLite file.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import optuna
import sqlalchemy
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback
from optuna.trial import FrozenTrial
from sqlalchemy.engine import URL, make_url

from harness.outdir import unmakeable_folder
from harness.quiet import optuna_one_line_warnings
from harness.redaction import STORAGE_ENV, redact_passwords
from harness.studies.workers import INTERRUPTED_ATTR, RESUMES_ATTR

STORAGE_FILE = "optuna.db"  # a study's own SQLite file in its folder, without --storage
SCHEMA_LOCK_KEY = 0x5A4E4245  # pg_advisory_lock key shared by sanbench workers ("SANB")
HEARTBEAT_S = 30  # seconds between a running trial's heartbeats (sanbench tune --heartbeat)
MAX_RETRY = 2  # re-runs of a trial whose worker died (sanbench tune --max_retry)
EXPECTED = "an SQLAlchemy URL (sqlite:///runs/s.db, postgresql://user:pass@host/db)"


def retry_callback(max_retry: int) -> Callable[[optuna.Study, FrozenTrial], None]:
    """Re-queue a stale trial with its parameters, at most ``max_retry`` times per trial, as
    continuing it (``resumes``); not one its worker queued again as it was stopped (killed
    before it was failed: until 2026-11-30 its parameters were queued twice)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        retry = RetryHeartbeatStaleTrialCallback(max_retry=max_retry)

    def callback(study: optuna.Study, trial: FrozenTrial) -> None:
        if trial.user_attrs.get(INTERRUPTED_ATTR):
            return
        continued = copy.deepcopy(trial)
        continued.user_attrs = {**trial.user_attrs, RESUMES_ATTR: trial.number}
        retry(study, continued)

    return callback


def default_storage(folder: Path) -> str:
    """The SQLite file of a study kept in its own folder: a new ``--out`` is a new study. A
    folder through a loop of symlinks is named as given (its ``--out`` is refused beside)."""
    try:
        folder = folder.resolve()
    except (RuntimeError, OSError):  # a symlink loop (RuntimeError before Python 3.13)
        folder = Path(os.path.abspath(folder))
    return f"sqlite:///{folder / STORAGE_FILE}"


def chosen_storage(spec: str | None, folder: Path) -> str:
    """``--storage``, else ``$SANBENCH_STORAGE`` (shared by every worker that names it), else
    the study folder's own file (:func:`default_storage`)."""
    return spec or os.environ.get(STORAGE_ENV) or default_storage(folder)


def storage_spec(spec: str | None) -> str:
    """``spec``, else ``$SANBENCH_STORAGE`` (how a worker job receives it); ``ValueError``
    without either."""
    chosen = spec or os.environ.get(STORAGE_ENV)
    if not chosen:
        raise ValueError(f"no storage: pass --storage or set {STORAGE_ENV}")
    return chosen


def storage_url(spec: str | None) -> URL:
    """The SQLAlchemy URL of ``spec`` (see :func:`storage_spec`); ``postgresql://`` uses
    psycopg 3 (the ``postgres`` extra), which takes a password left out of the URL from
    libpq's ``PGPASSWORD`` or ``~/.pgpass``."""
    spec = storage_spec(spec)
    shown = redact_passwords(spec)
    if spec.startswith("journal:"):
        raise ValueError(
            f"--storage {shown!r}: journal files are no longer supported (no heartbeat, so a "
            f"dead worker's trial stays running); use {EXPECTED}"
        )
    if "://" not in spec:  # not echoed: without "scheme://" a password cannot be told apart
        raise ValueError(f"--storage: expected {EXPECTED}, got a value without '://'")
    try:
        url = make_url(spec)
    except (sqlalchemy.exc.ArgumentError, ValueError):
        raise ValueError(f"--storage: not an SQLAlchemy URL; expected {EXPECTED}") from None
    try:
        url.get_dialect()  # an unknown database fails here, not after the first trial
    except (sqlalchemy.exc.ArgumentError, sqlalchemy.exc.NoSuchModuleError):
        shown = url.render_as_string(hide_password=True)
        raise ValueError(
            f"--storage {shown}: unknown database {url.drivername!r}; expected {EXPECTED}"
        ) from None
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    return url


def storage_problems(spec: str | None) -> list[str]:
    """What a run refuses of the storage ``spec`` (see :func:`storage_spec`) whatever is
    installed, connecting to nothing: a URL of no known database or malformed
    (:func:`storage_url`), an SQLite file whose folder cannot be made
    (:func:`sqlite_folder_problem`). A server or driver is found only as the study opens it."""
    try:
        url = storage_url(spec)
    except ValueError as error:
        return [str(error)]
    problem = sqlite_folder_problem(url)
    return [problem] if problem else []


def sqlite_folder_problem(url: URL) -> str | None:
    """Why the folder of an SQLite file ``url`` cannot be made (``sqlite:////proc/x/s.db``),
    in ``--out``'s words (:func:`harness.outdir.unmakeable_folder`), making nothing."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    problem = unmakeable_folder(Path(url.database).expanduser().parent)
    if problem is None:
        return None
    shown = url.render_as_string(hide_password=True)
    return f"--storage {shown}: {problem.removeprefix('--out ')}"  # the folder's path, then why


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Exclusive lock on ``path`` while the schema of an SQLite file is created."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def _advisory_lock(url: URL) -> Iterator[None]:
    """PostgreSQL advisory lock held while optuna creates or checks its schema."""
    engine = sqlalchemy.create_engine(url, poolclass=sqlalchemy.pool.NullPool)
    try:
        with engine.connect() as connection:
            connection.execute(
                sqlalchemy.text("SELECT pg_advisory_lock(:k)"), {"k": SCHEMA_LOCK_KEY}
            )
            try:
                yield
            finally:
                connection.execute(
                    sqlalchemy.text("SELECT pg_advisory_unlock(:k)"), {"k": SCHEMA_LOCK_KEY}
                )
    finally:
        engine.dispose()


def _schema_lock(url: URL) -> contextlib.AbstractContextManager[None]:
    if url.get_backend_name() == "postgresql":
        return _advisory_lock(url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        path = Path(url.database).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        return _file_lock(path.with_name(path.name + ".lock"))
    return contextlib.nullcontext()


def open_storage(
    spec: str | None,
    heartbeat_s: int = HEARTBEAT_S,
    grace_s: int | None = None,
    max_retry: int = MAX_RETRY,
) -> RDBStorage:
    """The storage at ``spec`` (``None``: ``$SANBENCH_STORAGE``), heartbeat and retry on; optuna's
    log made quiet first (:func:`harness.quiet.optuna_one_line_warnings`): every study sanbench
    opens or creates goes through here, so no INFO line of optuna's ("A new study created in RDB
    with name: ...") reaches the console."""
    optuna_one_line_warnings()
    url = storage_url(spec)
    if url.get_backend_name() == "sqlite":
        engine_kwargs = {"connect_args": {"timeout": 60}}  # wait for other workers' write locks
    else:
        engine_kwargs = {"pool_pre_ping": True}  # survive a server restart between trials
    with _schema_lock(url), warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return RDBStorage(
            url.render_as_string(hide_password=False),
            engine_kwargs=engine_kwargs,
            heartbeat_interval=heartbeat_s,
            grace_period=grace_s if grace_s is not None else 2 * heartbeat_s,
            heartbeat_stale_trial_callback=retry_callback(max_retry),
        )


def dashboard_command(spec: str | None) -> str:
    """The ``optuna-dashboard`` command that opens ``spec`` (password hidden as ``***``)."""
    return f"optuna-dashboard {storage_url(spec).render_as_string(hide_password=True)}"
