"""A command's ``--out``: sanbench writes only into a folder it made and over a file it made,
one writer at a time, and a failed command leaves no empty folder behind.

A folder is sanbench's when it holds the marker :data:`MARKER` (written into every ``--out``
folder a command makes or is given empty) or another record only sanbench writes (a
``.sanbench*`` file, a manifest of a sanbench kind, a sweep's or a suite's rows file whose
header names its key columns: folders made before the marker existed, or killed before it was
written); a file merely named like a record (``profile.csv``, ``results-1-of-1.csv``) is not.
A command that ends having written nothing (refused after its folder was marked and locked)
takes its marker, lock files and empty folders away again: the folder is left as it was.
A file ``--out`` (``predict``, ``encode``) is sanbench's when its record beside it
(``.NAME`` + :data:`FILE_RECORD`) holds the file's SHA-256: a file edited since is no longer;
one command writes it at a time (:func:`one_file_writer`).
Anything else is refused (:class:`NotOursError`, exit status 2) before any work, untouched.
So is a folder another command made (:func:`made_by`): each command writes only into its own.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import hashlib
import itertools
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import yaml
from filelock import FileLock, Timeout

from harness.errors import InputError
from reports.contracts.atomic import write_json_atomic
from reports.contracts.fit_folder import CONFIG as FIT_CONFIG
from reports.contracts.manifest import read_manifest
from reports.contracts.profile_run import KEY_COLUMNS as PROFILE_COLUMNS
from reports.contracts.profile_run import OPTIONAL, PROFILE_CSV
from reports.contracts.suite_results import KEY_COLUMNS as SUITE_KEYS
from reports.contracts.suite_results import RESULTS_GLOB

LOCK = ".sanbench.lock"  # the folder's writer lock; ``LOCK + ".pid"`` names its holder
# whose --out one process writes (fit, suite: their own locks)
LOCKED_COMMANDS = ("profile", "reproduce", "report")
MARKER = ".sanbench"  # "sanbench made this folder"; sanbench's other records start so too
FILE_COMMANDS = ("predict", "encode")  # whose --out is a file (checked with their options)
FILE_RECORD = ".sanbench.json"  # ``.NAME.sanbench.json``: the SHA-256 of the file NAME written
# --out folders a command makes at once, marked before anything is written (suite makes its own
# after checking its inputs: ``--aggregate-only`` needs one that exists; marked when it ends;
# tune marks its own once its options are right, before its study writes: studies/command.py)
MARKED_AT_START = LOCKED_COMMANDS
SHOWN = 3  # files named in a refusal
MARKER_TEXT = re.compile(r"made by sanbench (\w+)")  # what :func:`mark` writes
COMMAND_OF_KIND = {"study": "tune"}  # a manifest's kind -> its command (the others: the same)
PID_LINE = re.compile(rb"(\d+\n)?")  # what one_writer writes into ``LOCK + ".pid"`` (or not yet)
PID_BYTES = 24
PROFILE_KEYS = tuple(k for k in PROFILE_COLUMNS if k not in OPTIONAL)  # in its oldest files too


class FolderBusyError(InputError):
    """Another process holds the folder's writer lock."""


class NotOursError(InputError):
    """``--out`` names a file or folder sanbench did not make (or the wrong kind of path)."""


class OutIsFileError(NotOursError):
    """A folder's ``--out`` names an existing file: a problem of the filesystem, as every other
    ``--out``'s (no pointer to the help: ``harness.cli._status``)."""


def _lock_named(path: Path) -> bool:
    return path.name.startswith(MARKER) and path.name.endswith((".lock", ".lock.pid"))


def is_lock_file(path: Path) -> bool:
    """True for the lock files of :func:`one_writer` (they are not results): named so, a
    regular file (not a symlink) holding what sanbench writes there: nothing (filelock's lock
    file) or a PID line. Any other entry of that name is the user's (issue 54.6)."""
    if not _lock_named(path) or path.is_symlink() or not path.is_file():
        return False
    with path.open("rb") as handle:
        head = handle.read(PID_BYTES + 1)
    return head == b"" if path.name.endswith(".lock") else bool(PID_LINE.fullmatch(head))


def _is_bookkeeping(path: Path) -> bool:
    return is_lock_file(path) or path.name == MARKER


def holds_no_file(folder: Path) -> bool:
    """True when ``folder`` and its subfolders contain no file (only empty folders, lock files
    and the marker, if any)."""
    return not any(
        (path.is_file() or path.is_symlink()) and not _is_bookkeeping(path)
        for path in folder.rglob("*")
    )


def _run_manifest(folder: Path) -> dict | None:
    """``folder``'s manifest when sanbench wrote it: a known kind and the command that made it
    (or, written before it, a launch's ``threads``); a user's ``{"kind": "suite"}`` is not."""
    try:
        manifest = read_manifest(folder)
    except (OSError, ValueError):  # none, or a manifest.json of something else
        return None
    made = isinstance(manifest.get("command"), str) or isinstance(manifest.get("threads"), dict)
    return manifest if made else None


def _has_run_manifest(folder: Path) -> bool:
    return _run_manifest(folder) is not None


def _rows_file(path: Path, keys: tuple[str, ...]) -> bool:
    """True when the CSV ``path``'s first line names every one of ``keys``: a sweep's or a
    suite's rows (a file of that name with another header is the user's, issue 54.6)."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return set(keys) <= set(header)


def _has_profile_rows(folder: Path) -> bool:
    return _rows_file(folder / PROFILE_CSV, PROFILE_KEYS)


def _has_suite_rows(folder: Path) -> bool:
    return any(_rows_file(path, SUITE_KEYS) for path in folder.glob(RESULTS_GLOB))


def made_by_sanbench(folder: Path) -> bool:
    """True when ``folder`` holds the marker or another record only sanbench writes."""
    records = [
        p
        for p in folder.glob(f"{MARKER}*")
        if p.is_file()
        and not p.is_symlink()
        and not _lock_named(p)  # a lock (or a file named like one) proves nothing
        and not p.name.endswith(FILE_RECORD)
    ]
    return (
        bool(records)
        or _has_run_manifest(folder)
        or _has_profile_rows(folder)
        or _has_suite_rows(folder)
    )


def is_fit_config(path: Path) -> bool:
    """True when ``path`` is a fit config as ``fit`` writes it (a regular file, a YAML mapping
    with its ``model`` section): a file of that name holding anything else is the user's."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(config, dict) and "model" in config


def made_by(folder: Path) -> str | None:
    """The sanbench command that made ``folder`` (None: not known), read from its records:
    the marker's words, else its manifest's kind, else the file only one command writes
    (``fit_config.yaml``: fit; a sweep's ``profile.csv``: profile; a suite's rows: suite, a
    reproduction has them too, and its marker and manifest)."""
    marker = folder / MARKER
    if marker.is_file() and not marker.is_symlink():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if found := MARKER_TEXT.match(marker.read_text(encoding="utf-8")):
                return found[1]
    if manifest := _run_manifest(folder):
        return COMMAND_OF_KIND.get(manifest["kind"], manifest["kind"])
    if is_fit_config(folder / FIT_CONFIG):
        return "fit"
    return "profile" if _has_profile_rows(folder) else "suite" if _has_suite_rows(folder) else None


def check_made_by(out: Path, command: str) -> None:
    """Raise :class:`NotOursError` when another sanbench command made the folder ``out``
    (:func:`made_by`): ``command`` would write into (or resume) what is not its own."""
    maker = made_by(out) if out.is_dir() else None
    if maker not in (None, command):
        raise NotOursError(
            f"--out {out} was made by sanbench {maker}, not {command}; nothing was written. "
            f"Give a new or empty folder, or one sanbench {command} made"
        )


def _listing(paths: list[Path]) -> str:
    names = [p.name + ("/" if p.is_dir() else "") for p in paths[:SHOWN]]
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return ", ".join(names) + more


def _not_ours(path: Path) -> bool:
    """True when ``path`` is, or holds, a file that is not in a folder sanbench made (a lock
    file is sanbench's; a folder of sanbench's run folders is, e.g. a suite killed before its
    first row)."""
    if is_lock_file(path):
        return False
    if path.is_symlink() or not path.is_dir():
        return True
    return not made_by_sanbench(path) and any(_not_ours(p) for p in path.iterdir())


def _links(link: Path) -> str:
    """What the symlink ``link`` that leads nowhere is: each link of its chain by its target up
    to the one whose target does not exist, or round its loop (``a symlink to B, which is a
    symlink to C, which does not exist``; ``..., which is a symlink to A: a loop``)."""
    seen = {os.path.abspath(link)}
    words = []
    while True:
        target = os.readlink(link)
        words.append(f"a symlink to {target}")
        link = Path(os.path.join(link.parent, target))
        if os.path.abspath(link) in seen:
            return ", which is ".join(words) + ": a loop of symlinks"
        if not link.is_symlink():  # nothing there (or a folder of its path leads nowhere)
            return ", which is ".join(words) + ", which does not exist"
        seen.add(os.path.abspath(link))


def dangling_link(path: Path, out: Path) -> str | None:
    """The problem of ``--out out`` when ``path`` (``out``, or the folder a file ``out`` goes
    in) is, or lies in, a symlink that leads nowhere (:func:`_links`; None: neither), one
    wording for every command: was a raw ``[Errno 17] File exists`` once the data was read, and
    ``folder ... does not exist`` from ``predict``."""
    given = path.absolute()
    nearest = next((p for p in (given, *given.parents) if os.path.lexists(p)), None)
    if nearest is None or nearest.exists():
        return None
    where = "" if nearest == out.absolute() else f" {nearest} is"
    return f"--out {out}:{where} {_links(nearest)}"


def unmakeable_folder(out: Path) -> str | None:
    """Why the folder ``out`` cannot be made or written (None: it can), found without making
    anything: it or a folder of its path is a symlink that leads nowhere (:func:`dangling_link`),
    its nearest existing ancestor is not a folder, or no entry can be made there."""
    if out.is_dir():
        return None if writable(out) else f"--out {out}: folder {out} is not writable"
    if problem := dangling_link(out, out):
        return problem
    given = out.absolute()
    nearest = next(p for p in (given, *given.parents) if os.path.lexists(p))
    if not nearest.is_dir():
        return f"--out {out}: cannot be made, {nearest} is a file"
    if not writable(nearest):
        return f"--out {out}: cannot be made, folder {nearest} is not writable"
    return None


def check_out_folder(out: Path, command: str) -> None:
    """Raise :class:`NotOursError` unless ``out`` is absent, empty (of files) or made by
    ``command`` (:func:`check_made_by`; or by sanbench, its records not saying which), and can
    be made (:func:`unmakeable_folder`)."""
    if out.exists() and not out.is_dir():
        raise OutIsFileError(f"--out {out} is a file, not a folder; give a folder for the results")
    if problem := unmakeable_folder(out):
        raise NotOursError(f"{problem}; nothing was created. Choose another --out")
    check_made_by(out, command)
    if problem := foreign_files(out):
        raise NotOursError(problem)


def foreign_files(out: Path) -> str | None:
    """The problem of ``--out out`` when it is a folder sanbench did not make holding files
    that are not sanbench's (None: it is not), one wording for every command."""
    if not out.is_dir() or made_by_sanbench(out):
        return None
    held = sorted(p for p in out.iterdir() if _not_ours(p))
    if not held:
        return None
    return (
        f"--out {out} holds {_listing(held)}, which sanbench did not make; nothing was "
        "written. Give a new or empty folder (sanbench writes only into folders it made)"
    )


def out_folder_problems(out: Path | str | None, command: str) -> list[str]:
    """What stops ``command`` from writing into ``--out out`` (:func:`check_out_folder`, which
    :func:`out_folder` asks again as it takes it), for a refusal of the other options to say
    too: an unwritable ``--out /proc/x`` beside ``--batch-size 0``, not once that is fixed."""
    if out is None:
        return []
    try:
        check_out_folder(Path(out), command)
    except InputError as error:
        return str(error).splitlines()
    return []


def mark(folder: Path, command: str) -> None:
    """Make ``folder`` (checked by :func:`check_out_folder`) with its marker, if it lacks one."""
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / MARKER
    if not os.path.lexists(marker):  # never through a symlink
        marker.write_text(f"made by sanbench {command}: sanbench writes into this folder\n")


def _holder_pid(pid_file: Path) -> str:
    return pid_file.read_text().strip() if is_lock_file(pid_file) else "not written yet"


def busy(written: Path, pid: str) -> FolderBusyError:
    """The refusal of a second writer of ``written`` while process ``pid`` writes it."""
    return FolderBusyError(
        f"{written} is being written by another sanbench process (PID {pid}); wait for it to "
        "end or choose another --out"
    )


def lock_holder(lock_file: Path) -> str | None:
    """The PID of the process holding the lock ``lock_file`` of :func:`one_writer` (``not
    written yet`` when it has not written it), None when none does: probed, taken and released
    at once when free (an entry that is not a lock file of sanbench's is never opened)."""
    if not is_lock_file(lock_file):
        return None
    lock = FileLock(lock_file)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return _holder_pid(lock_file.with_name(f"{lock_file.name}.pid"))
    lock.release()
    return None


@contextlib.contextmanager
def one_writer(
    folder: Path | str, lock_name: str = LOCK, written: Path | None = None
) -> Iterator[None]:
    """Hold ``folder``'s writer lock (``filelock``) while the body runs, with this process's
    PID written beside it; raise :class:`FolderBusyError` naming the holder's PID when another
    process holds it (the folder, or ``written``: the file a lock of its own guards),
    :class:`NotOursError` when an entry of either name is not sanbench's (:func:`is_lock_file`:
    neither is opened, nor followed if a symlink). The lock is released when the body ends or
    the process dies; its file stays (removed only with the folder held and the file free:
    :func:`out_folder`, :func:`removed_if_left_empty`). The lock file is opened and locked with
    the folder held (:func:`folder_held`)."""
    folder = Path(folder)
    lock = FileLock(folder / lock_name)
    pid_file = folder / f"{lock_name}.pid"
    with folder_held(folder, make=True):  # no lock file is removed while it is opened here
        for entry in (folder / lock_name, pid_file):
            if os.path.lexists(entry) and not is_lock_file(entry):
                raise NotOursError(
                    f"{folder} holds {entry.name}, which sanbench did not make (its lock files "
                    "are named so); nothing was written. Move it away or choose another --out"
                )
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise busy(written or folder, _holder_pid(pid_file)) from None
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        with os.fdopen(os.open(pid_file, flags, 0o666), "w") as handle:
            handle.write(f"{os.getpid()}\n")
        yield
    finally:
        pid_file.unlink(missing_ok=True)
        lock.release()


_HELD: dict[tuple[int, int], int] = {}  # folders this process holds (folder_held): times taken


@contextlib.contextmanager
def folder_held(folder: Path, make: bool = False) -> Iterator[None]:
    """Hold an exclusive ``flock`` of the folder itself while the body runs, waiting for another
    process's (a step of milliseconds: a check of its lock files, the taking or removing of one).
    No file is made for it. Held already by this process, it is taken again at once; a folder
    removed while this one waited is opened again (made again with ``make``): the lock is that
    of the folder the path names when the body runs."""
    while True:
        if make:
            folder.mkdir(parents=True, exist_ok=True)
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        status = os.fstat(handle)
        key = (status.st_dev, status.st_ino)
        if key not in _HELD:
            fcntl.flock(handle, fcntl.LOCK_EX)
        with contextlib.suppress(FileNotFoundError):
            if os.path.samestat(status, os.stat(folder)):
                break
        os.close(handle)  # removed meanwhile (held by this process, it cannot be)
    _HELD[key] = _HELD.get(key, 0) + 1
    try:
        yield
    finally:
        _HELD[key] -= 1
        if not _HELD[key]:
            del _HELD[key]
        os.close(handle)  # the lock goes with the last one


def _remove_lock_file(path: Path) -> bool:
    """Remove the lock file ``path`` of :func:`one_writer` unless a process holds it (True:
    removed, or gone). Called with its folder held (:func:`folder_held`): a process opens a lock
    file, and locks it, only so, so none holds it open unlocked while it goes (a process that
    locked it afterwards would hold a file no path names, and a third one a new file)."""
    try:
        handle = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False  # another process's, now
    else:
        path.unlink(missing_ok=True)
        return True
    finally:
        os.close(handle)


def _remove_bookkeeping(path: Path) -> bool:
    """Remove the marker or lock file ``path`` (its folder held); False: a lock another process
    holds now, kept."""
    if path.name.endswith(".lock"):
        return _remove_lock_file(path)
    path.unlink(missing_ok=True)
    return True


@contextlib.contextmanager
def one_file_writer(out: Path) -> Iterator[None]:
    """Hold the lock of the file ``out`` (``predict``, ``encode``) while the body writes it:
    ``.sanbench-NAME.lock`` beside it (:func:`one_writer`). A second command writing the same
    file meanwhile is refused (:class:`FolderBusyError`). Once released, a lock file this
    command made is removed with the folder held and only while no process holds it
    (:func:`_remove_lock_file`, as a folder's is): a command that opened it meanwhile did so
    with the folder held and locked it then, so it stays theirs."""
    lock_file = out.parent / f"{MARKER}-{out.name}.lock"
    made = not os.path.lexists(lock_file)  # one there before (a refusal's folder stays as it was)
    try:
        with one_writer(out.parent, lock_file.name, written=out):
            yield
    finally:
        if made:
            with contextlib.suppress(FileNotFoundError), folder_held(out.parent):
                if is_lock_file(lock_file):  # not an entry of the user's made meanwhile
                    _remove_lock_file(lock_file)


@contextlib.contextmanager
def removed_if_left_empty(out: Path | str | None) -> Iterator[None]:
    """Run the body; if it created ``out`` and wrote no file there (it failed early), remove it,
    and the folders above it that it made for it (``runs/`` of a refused ``--out runs/x``).

    Whether the body returns or raises: a folder that existed before, or that holds any file
    (results, or partial results a rerun resumes from), is kept; so is one whose writer refused
    the body (:class:`FolderBusyError`: two commands started at once, the other one writes it).
    """
    folder = None if out is None else Path(out).absolute()
    created = folder is not None and not folder.exists()
    # the missing folders above it, nearest first: emptied, each is removed
    above = list(itertools.takewhile(lambda p: not p.exists(), folder.parents)) if created else []
    refused = False  # because another process writes there: its folder, made at the same time
    try:
        yield
    except FolderBusyError:
        refused = True
        raise
    finally:
        if created and not refused and folder.is_dir() and _emptied(folder):
            for parent in above:  # never another's: only an empty folder is removed
                with contextlib.suppress(OSError):
                    parent.rmdir()


def _emptied(folder: Path) -> bool:
    """Remove ``folder`` when it holds no file but sanbench's bookkeeping and no lock another
    process holds (True: removed), with it held (:func:`folder_held`)."""
    with folder_held(folder):
        if not holds_no_file(folder):
            return False
        bookkeeping = [p for p in folder.rglob("*") if p.is_file() or p.is_symlink()]
        if not all([_remove_bookkeeping(p) for p in bookkeeping]):
            return False  # another process writes there now: its folder
        shutil.rmtree(folder)
        return True


Entries = dict[Path, tuple[int, int] | None]


def _entries(folder: Path) -> Entries:
    """Every entry under ``folder`` (none if it is absent): a file's size and modification
    time, None for a folder (a symlink is a file; never followed)."""
    if not folder.is_dir():
        return {}
    found: Entries = {}
    for path in folder.rglob("*"):
        status = path.lstat()
        is_folder = path.is_dir() and not path.is_symlink()
        found[path] = None if is_folder else (status.st_size, status.st_mtime_ns)
    return found


def _results(entries: Entries) -> Entries:
    return {p: v for p, v in entries.items() if v is not None and not _is_bookkeeping(p)}


def _put_back(folder: Path, before: Entries) -> bool:
    """When no file but sanbench's bookkeeping under ``folder`` was added, changed or removed
    since ``before``: remove the marker, lock files and folders added since, and return True
    (the folder is as it was); else change nothing and return False."""
    with folder_held(folder):  # a lock file goes only so (:func:`_remove_lock_file`)
        after = _entries(folder)
        if _results(after) != _results(before):
            return False
        added = sorted(after.keys() - before.keys(), key=lambda p: len(p.parts), reverse=True)
        for path in added:
            if after[path] is None:
                with contextlib.suppress(OSError):  # a folder holding something is kept
                    path.rmdir()
            else:  # bookkeeping only: the results were compared; a lock held now is kept
                _remove_bookkeeping(path)
    return True


@contextlib.contextmanager
def out_folder(command: str, out: Path | str | None) -> Iterator[None]:
    """A command's ``--out`` folder: refused unless sanbench may write into it, marked, one
    writer for :data:`LOCKED_COMMANDS`; when the command ends having written no file (refused
    by a later check, say), the marker, lock files and folders it added are taken away again,
    and a folder it made is removed; refused by another writer (two commands started at once),
    only the marker: the lock files and folders added since are the writer's. The launch
    folders of killed commands (``OUT/jobs/launch-*``) go as an accepted command ends, also
    when it launches no job (until 2026-11-30 only at a launch: a finished study's rerun left
    them); a refused command removes nothing (:func:`dead_launch_folders_removed`). A file
    ``--out`` (:data:`FILE_COMMANDS`) is left to the command."""
    if out is None or command in FILE_COMMANDS:
        yield
        return
    folder = Path(out)
    check_out_folder(folder, command)  # its refusal named as written by harness.cli
    before = _entries(folder)
    with removed_if_left_empty(folder):
        refused = False  # by another writer
        try:
            if folder.is_dir() or command in MARKED_AT_START:
                mark(folder, command)
            lock = one_writer(folder) if command in LOCKED_COMMANDS else contextlib.nullcontext()
            with lock, dead_launch_folders_removed(folder / "jobs"):
                yield
        except FolderBusyError:
            refused = True
            raise
        finally:
            if refused:  # what was added since but the marker is the writer's (its locks)
                if folder / MARKER not in before:
                    (folder / MARKER).unlink(missing_ok=True)
            elif folder.is_dir() and not _put_back(folder, before):
                mark(folder, command)  # a folder the command made after its checks


@contextlib.contextmanager
def dead_launch_folders_removed(jobs: Path) -> Iterator[None]:
    """Around a command that holds its ``--out`` (its lock, for :data:`LOCKED_COMMANDS`): as it
    ends, accepted (done, stopped or failed), the launch folders of killed commands in ``jobs``
    go, also when it launched no job; refused (an :class:`InputError`: nothing written) nothing
    goes. Until 2026-12-01 they went as it opened its ``--out``, before its lock and its own
    checks: ``profile --resume`` refused a folder after removing its launch folders (issue
    54)."""
    from harness.launch.launch_folders import remove_dead_launch_folders

    try:
        yield
    except InputError:
        raise
    except BaseException:
        remove_dead_launch_folders(jobs)
        raise
    remove_dead_launch_folders(jobs)


def _record(path: Path) -> Path:
    return path.with_name(f".{path.name}{FILE_RECORD}")


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _recorded(path: Path) -> dict | None:
    """The record :func:`record_file` wrote beside ``path`` (None: none, or not sanbench's: a
    symlink, or a file holding anything else)."""
    record = _record(path)
    if record.is_symlink() or not record.is_file():
        return None
    try:
        recorded = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ours = isinstance(recorded, dict) and recorded.keys() == {"written_by", "sha256"}
    return recorded if ours and str(recorded["written_by"]).startswith("sanbench ") else None


def made_file(path: Path) -> bool:
    """True when sanbench wrote ``path`` (:func:`record_file`) and nobody changed it since (a
    symlink is never sanbench's: it writes regular files)."""
    recorded = _recorded(path)
    if recorded is None or path.is_symlink():
        return False
    try:
        return recorded["sha256"] == _sha256(path)
    except OSError:
        return False


def record_file(path: Path, command: str) -> None:
    """Record that sanbench ``command`` wrote ``path`` (its SHA-256, beside it)."""
    write_json_atomic(_record(path), {"written_by": f"sanbench {command}", "sha256": _sha256(path)})


def writable(folder: Path) -> bool:
    """True when a file can be made in ``folder`` (tried: an unnamed temporary file)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _not_made_problem(out: Path) -> str:
    """The line refusing ``out``, a file that ``predict`` or ``encode`` did not write (or one
    changed since): in a folder another sanbench command made (a fit's ``test_predictions.csv``,
    its ``checkpoints/last.ckpt``), that command made it."""
    maker = next(
        ((folder, made) for folder in out.absolute().parents if (made := made_by(folder))),
        None,
    )
    if maker is None or _recorded(out) is not None:
        return (
            f"--out {out} exists and sanbench did not make it (or it was changed since); "
            "nothing was written. Choose another file name"
        )
    folder, command = maker
    return (
        f"--out {out} is a file of {folder}, which sanbench {command} made: predict and "
        "encode write over only the files they wrote; nothing was written. Choose another file "
        "name"
    )


def suffix_problems(out: Path, suffix: str) -> list[str]:
    """The line of a file name ``out`` not ending ``suffix`` (a problem of the word typed)."""
    return [] if out.suffix == suffix else [f"--out {out}: expected a {suffix} file name"]


def out_file_problems(out: Path, suffix: str, overwrite: bool) -> list[str]:
    """What stops a command from writing the file ``out`` (one line each; none: it may):
    a folder, a missing or unwritable folder, a file sanbench did not make (a symlink, dangling
    or not), a file of its record's name that is not its record, or a file it made without
    ``overwrite``."""
    example = f"e.g. {out / ('output' + suffix)}"
    if out.is_dir():
        return [f"--out {out} is a folder; give a {suffix} file name ({example})"]
    problems = suffix_problems(out, suffix)
    above = next((folder for folder in reversed(out.parents) if not folder.is_dir()), None)
    if above is not None and above.exists():  # a file where a folder of the path should be
        return [*problems, f"--out {out}: {above} is a file, not a folder"]
    if not out.parent.is_dir():
        said = dangling_link(out.parent, out) or f"--out {out}: folder {out.parent} does not exist"
        return [*problems, said]
    if not writable(out.parent):
        return [*problems, f"--out {out}: folder {out.parent} is not writable"]
    if out.is_symlink():  # dangling or not: replacing it would drop the user's link
        problems.append(
            f"--out {out} is a symlink (sanbench writes only files it made); nothing was "
            "written. Choose another file name"
        )
    elif out.exists() and not made_file(out):
        problems.append(_not_made_problem(out))
    elif os.path.lexists(_record(out)) and _recorded(out) is None:
        problems.append(
            f"--out {out}: {_record(out).name} beside it is not a record sanbench wrote (its "
            "records of the files it writes are named so); nothing was written. Move it away "
            "or choose another file name"
        )
    elif out.exists() and not overwrite:
        problems.append(
            f"--out {out} exists (an earlier sanbench command wrote it); add --overwrite to "
            "replace it, or choose another file name"
        )
    return problems
