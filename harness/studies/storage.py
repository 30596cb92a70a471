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
import ipaddress
import os
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import optuna
import sqlalchemy
from optuna.storages import RDBStorage, RetryHeartbeatStaleTrialCallback
from optuna.trial import FrozenTrial
from sqlalchemy.engine import URL, make_url

from datamodules.paths import expanded
from harness.outdir import unmakeable_folder
from harness.quiet import optuna_one_line_warnings
from harness.redaction import HIDDEN, STORAGE_ENV, redact_passwords
from harness.studies.workers import INTERRUPTED_ATTR, RESUMES_ATTR

STORAGE_FILE = "optuna.db"  # a study's own SQLite file in its folder, without --storage
SCHEMA_LOCK_KEY = 0x5A4E4245  # pg_advisory_lock key shared by sanbench workers ("SANB")
HEARTBEAT_S = 30  # seconds between a running trial's heartbeats (sanbench tune --heartbeat)
MAX_RETRY = 2  # re-runs of a trial whose worker died (sanbench tune --max_retry)
EXPECTED = "an SQLAlchemy URL (sqlite:///runs/s.db, postgresql://user:pass@host/db)"
SQLITE_HEADER = b"SQLite format 3\x00"  # the first bytes of every SQLite database file
IN_MEMORY = (None, "", ":memory:")  # an SQLite URL's database that is no file
HOST_NAME = re.compile(r"[A-Za-z0-9._-]+")
# how to install a driver of SQLAlchemy's (its name in the URL, or the dialect's default)
DRIVER_INSTALLS = {
    "psycopg": "pip install 'sanbench[postgres]'",
    "mysqldb": "pip install mysqlclient",
}


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


def storage_source(spec: str | None) -> str:
    """How the storage of ``spec`` is named to the user: ``--storage`` as typed, else
    ``$SANBENCH_STORAGE`` (:func:`storage_spec`)."""
    return "--storage" if spec else f"${STORAGE_ENV}"


def hidden_password(value: str) -> str:
    """``value`` as shown, its password as ``***`` (:func:`redact_passwords`); without
    ``scheme://`` (``u:pw@h/db``), all between its first ``:`` and its last ``@``."""
    head, at, host = value.rpartition("@")
    if "://" in value or not at or ":" not in head:
        return redact_passwords(value)
    return f"{head.split(':', 1)[0]}:{HIDDEN}@{host}"


def storage_url(spec: str | None) -> URL:
    """The SQLAlchemy URL of ``spec`` (see :func:`storage_spec`); ``postgresql://`` uses
    psycopg 3 (the ``postgres`` extra), which takes a password left out of the URL from
    libpq's ``PGPASSWORD`` or ``~/.pgpass``. A malformed one (no ``://``, an unknown
    database, a host or port no server has) is a ``ValueError`` naming it as given."""
    chosen = storage_spec(spec)
    named = f"{storage_source(spec)} {hidden_password(chosen)}"
    if chosen.startswith("journal:"):
        raise ValueError(
            f"{named}: journal files are no longer supported (no heartbeat, so a dead worker's "
            f"trial stays running); use {EXPECTED}"
        )
    if "://" not in chosen:
        raise ValueError(f"{named}: expected {EXPECTED}, got a value without '://'")
    try:
        url = make_url(chosen)
    except (sqlalchemy.exc.ArgumentError, ValueError):
        raise ValueError(f"{named}: not an SQLAlchemy URL; expected {EXPECTED}") from None
    try:
        url.get_dialect()  # an unknown database fails here, not after the first trial
    except (sqlalchemy.exc.ArgumentError, sqlalchemy.exc.NoSuchModuleError):
        raise ValueError(
            f"{named}: unknown database {url.drivername!r}; expected {EXPECTED}"
        ) from None
    if problem := server_address_problem(url):
        raise ValueError(f"{named}: {problem}; expected {EXPECTED}")
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    return url


def server_address_problem(url: URL) -> str | None:
    """Why the host or port of ``url`` is no server's (``[bad``, ``99999``), connecting to
    nothing: a host is a name of letters, digits, ``.``, ``-``, ``_`` or an IP address."""
    if url.port is not None and not 0 < url.port < 2**16:
        return f"port {url.port} is not a port (1 to 65535)"
    if url.host and not HOST_NAME.fullmatch(url.host):
        try:
            ipaddress.ip_address(url.host)
        except ValueError:
            return f"host {url.host!r} is not a host name or an IP address"
    return None


def storage_problems(spec: str | None, driver: bool = False) -> list[str]:
    """What a run refuses of the storage ``spec`` (see :func:`storage_spec`; none without
    either), connecting to nothing: a malformed URL (:func:`storage_url`), an SQLite file no
    later command could open (:func:`sqlite_problem`), and with ``driver`` (the run, not
    ``--print_config``: the machine that runs the study installs it) a driver not installed
    (:func:`driver_problem`). A server is found only as the study opens it."""
    if not (spec or os.environ.get(STORAGE_ENV)):
        return []
    try:
        url = storage_url(spec)
    except ValueError as error:
        return [str(error)]
    named = f"{storage_source(spec)} {hidden_password(storage_spec(spec))}"
    problem = sqlite_problem(url) or (driver_problem(url) if driver else None)
    return [f"{named}: {problem}"] if problem else []


def sqlite_problem(url: URL) -> str | None:
    """Why the SQLite storage ``url`` is none a later command can open, making nothing: in
    memory (gone with the run), SQLite's URI form (``?uri=true``: its file, ``file:PATH`` or
    ``file::memory:``, is not a path), a folder that cannot be made (in ``--out``'s words,
    :func:`harness.outdir.unmakeable_folder`), a file that is not its (:func:`foreign_file`)."""
    if url.get_backend_name() != "sqlite":
        return None
    if "uri" in url.query:
        return "SQLite's URI form names no file sanbench can check; give a plain sqlite:///PATH"
    if url.database in IN_MEMORY:
        return (
            "an in-memory database is gone with the run: no later command can continue or "
            "show its study; give a file (sqlite:///runs/s.db) or a server"
        )
    path = expanded(url.database)
    problem = unmakeable_folder(path.parent)
    return problem.removeprefix("--out ") if problem else foreign_file(path)


def foreign_file(path: Path) -> str | None:
    """Why ``path`` is no SQLite file sanbench may write (never overwritten): a folder, an
    unreadable file, one that is not an SQLite database. An empty one beside its lock file
    (:func:`_schema_lock`) is one a worker of sanbench is making."""
    if path.is_dir():
        return f"{path} is a folder; give a file in it (sqlite:///{path}/s.db)"
    if not path.exists():
        return None
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError as error:
        return f"{path} cannot be read ({error.strerror})"
    if head == SQLITE_HEADER or (not head and _lock_path(path).exists()):
        return None
    return (
        f"{path} is not an SQLite database, and sanbench never overwrites a file it did not "
        "make; give another file"
    )


def driver_problem(url: URL) -> str | None:
    """The driver of ``url`` not installed, with how to install it: its import is tried,
    connecting to nothing."""
    try:
        url.get_dialect().import_dbapi()
    except ImportError as error:
        driver = url.get_driver_name()
        install = DRIVER_INSTALLS.get(driver, f"install SQLAlchemy's {driver!r} driver")
        return f"its driver is not installed ({error}): {install}"
    return None


@contextlib.contextmanager
def storage_env_unread() -> Iterator[None]:
    """Within the block, ``$SANBENCH_STORAGE`` is not set: a stand-in's options judge no
    storage, said by the options' own refusal (:func:`storage_problems`)."""
    saved = os.environ.pop(STORAGE_ENV, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[STORAGE_ENV] = saved


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


def _lock_path(path: Path) -> Path:
    """The lock file beside the SQLite file ``path``, made before it (:func:`_schema_lock`)."""
    return path.with_name(path.name + ".lock")


def _schema_lock(url: URL) -> contextlib.AbstractContextManager[None]:
    if url.get_backend_name() == "postgresql":
        return _advisory_lock(url)
    if url.get_backend_name() == "sqlite" and url.database not in IN_MEMORY:
        path = expanded(url.database)
        path.parent.mkdir(parents=True, exist_ok=True)
        return _file_lock(_lock_path(path))
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
    return f"optuna-dashboard {redact_passwords(storage_url(spec).render_as_string())}"
