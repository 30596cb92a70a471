"""A command's own launch folder in ``OUT/jobs`` (``launch-<pid>-<id>``: its ``process`` jobs'
files, :func:`harness.quiet.command_folder`), the record of who made it, and the removal of
the folders whose command is provably gone.

Several commands may share one ``--out`` from several machines or containers (a study's
workers, docs/studies.md): a pid names a process only on its machine and in its pid namespace.
Each folder therefore holds :data:`OWNER`, written before the folder takes its name: the host,
the kernel's boot id, the pid namespace, the pid and the process's start time. A folder is
removed only when its command is provably gone: made on this host, this boot and this pid
namespace, and no process of its pid with its start time runs. Any other folder is kept (until
2026-11-30 a command in another pid namespace removed a live command's folder, and its jobs
crashed). They are removed once a command is accepted (``harness.outdir.out_folder``) or
launches: a refused command removes nothing."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from harness.measurement.process_start import process_place, process_start_time, this_boots

PREFIX = "launch-"
OWNER = "owner.json"  # in each launch folder: who made it (:func:`owner_record`)
START_SLACK_S = 1.0  # two readings of one process's start time differ by less
PID_MAX = 2**22  # the largest pid Linux gives (its pid_max's limit)


def owner_record() -> dict[str, Any]:
    """What names this process among every machine's and container's: host, boot, pid
    namespace (:func:`process_place`), pid and start time."""
    return {
        **process_place(),
        "pid": os.getpid(),
        "started": process_start_time(os.getpid()),
    }


def make_launch_folder(jobs: Path) -> Path:
    """This command's new folder in ``jobs``, holding :data:`OWNER` from the moment it has its
    name (made under a hidden name, then renamed), after the dead commands' are removed."""
    jobs.mkdir(parents=True, exist_ok=True)
    remove_dead_launch_folders(jobs)
    hidden = Path(tempfile.mkdtemp(prefix=f".{PREFIX}{os.getpid()}-", dir=jobs))
    (hidden / OWNER).write_text(json.dumps(owner_record()))
    mine = hidden.with_name(hidden.name[1:])
    hidden.rename(mine)
    return mine


def remove_dead_launch_folders(jobs: Path) -> None:
    """Remove the folders in ``jobs`` whose command is provably gone (:func:`provably_dead`),
    but for their jobs' tracebacks (:func:`remove_launch_folder`). Called at each launch and as
    an accepted command ends (``harness.outdir.out_folder``)."""
    if not jobs.is_dir():
        return
    for folder in jobs.glob(f"{PREFIX}*-*"):
        if provably_dead(folder):
            remove_launch_folder(folder)


def provably_dead(folder: Path) -> bool:
    """Whether the command that made ``folder`` is gone for certain: its :data:`OWNER` names
    this host, boot and pid namespace, a start time a process of this boot can have, and no
    process of its pid runs, or one that started after it (its pid reused). A folder without a
    readable record (being made, or not sanbench's) is not; nor one whose start time cannot be
    its pid's: until 2026-12-01 ``"started": 1e300``, ``-1`` or ``0`` beside a live pid called
    a live command's folder dead (issue 54)."""
    owner = _record(folder)
    if owner is None:
        return False
    pid, started = owner["pid"], owner["started"]
    if any(value is None or owner.get(key) != value for key, value in process_place().items()):
        return False  # another machine's, container's or boot's pid, or not known here
    if not this_boots(started, START_SLACK_S):
        return False
    now = process_start_time(pid)
    return now is None or now - started > START_SLACK_S


def _record(folder: Path) -> dict[str, Any] | None:
    """``folder``'s :data:`OWNER` when it reads as :func:`owner_record` writes it (a pid of
    this system's range, a finite start time), else None. Until 2026-12-01 a record reading
    ``"pid": 1e999`` stopped every command on that ``--out`` with an internal error
    (OverflowError), and ``"started": 1e999`` beside a live pid called its folder dead
    (outside check 9y item 2)."""
    try:
        owner = json.loads((folder / OWNER).read_text())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(owner, dict):
        return None
    pid, started = owner.get("pid"), owner.get("started")
    if type(pid) is not int or not 0 < pid <= PID_MAX:
        return None
    if type(started) not in (int, float) or not math.isfinite(started):
        return None
    return owner


def remove_launch_folder(folder: Path) -> None:
    """Remove a launch folder's notes, results and record, and the folder if nothing else is
    left (a job's ``.err`` traceback stays, named by its command's report)."""
    shutil.rmtree(folder / "said", ignore_errors=True)
    for suffix in ("*.result.pkl", "*.run", OWNER):
        for path in folder.glob(suffix):
            path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()
