"""An ``--out`` folder: one writer at a time, and not left behind empty by a failed command."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from harness.errors import InputError

LOCK = ".sanbench.lock"  # the folder's writer lock; ``LOCK + ".pid"`` names its holder
LOCKED_COMMANDS = ("profile", "reproduce")  # whose --out one process writes (fit, suite: theirs)


class FolderBusyError(InputError):
    """Another process holds the folder's writer lock."""


def is_lock_file(path: Path) -> bool:
    """True for the lock files of :func:`one_writer` (they are not results)."""
    return path.name.startswith(".sanbench") and path.name.endswith((".lock", ".lock.pid"))


def holds_no_file(folder: Path) -> bool:
    """True when ``folder`` and its subfolders contain no file (only empty folders and lock
    files, if any)."""
    return not any(
        (path.is_file() or path.is_symlink()) and not is_lock_file(path)
        for path in folder.rglob("*")
    )


@contextlib.contextmanager
def one_writer(folder: Path | str, lock_name: str = LOCK) -> Iterator[None]:
    """Hold ``folder``'s writer lock (``filelock``) while the body runs, with this process's
    PID written beside it; raise :class:`FolderBusyError` naming the holder's PID when another
    process holds it. The lock is released when the body ends or the process dies."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(folder / lock_name)
    pid_file = folder / f"{lock_name}.pid"
    try:
        lock.acquire(timeout=0)
    except Timeout:
        holder = pid_file.read_text().strip() if pid_file.is_file() else "not written yet"
        raise FolderBusyError(
            f"{folder} is being written by another sanbench process (PID {holder}); wait for "
            "it to end or choose another --out"
        ) from None
    try:
        pid_file.write_text(f"{os.getpid()}\n")
        yield
    finally:
        pid_file.unlink(missing_ok=True)
        lock.release()


@contextlib.contextmanager
def removed_if_left_empty(out: Path | str | None) -> Iterator[None]:
    """Run the body; if it created ``out`` and wrote no file there (it failed early), remove it.

    Whether the body returns or raises: a folder that existed before, or that holds any file
    (results, or partial results a rerun resumes from), is kept.
    """
    folder = None if out is None else Path(out)
    created = folder is not None and not folder.exists()
    try:
        yield
    finally:
        if created and folder.is_dir() and holds_no_file(folder):
            shutil.rmtree(folder)


@contextlib.contextmanager
def out_folder(command: str, out: Path | str | None) -> Iterator[None]:
    """A command's ``--out``: removed if left empty; one writer for :data:`LOCKED_COMMANDS`."""
    with removed_if_left_empty(out):
        locked = out is not None and command in LOCKED_COMMANDS
        with one_writer(out) if locked else contextlib.nullcontext():
            yield
