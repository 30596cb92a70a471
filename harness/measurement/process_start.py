"""When a process started, as the machine counts it (psutil): to tell a live process from a
later one that reuses its pid; and where a pid names that process (host, boot, pid namespace)."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")  # the same in every container of a kernel
PID_NAMESPACE = "/proc/self/ns/pid"


def process_start_time(pid: int) -> float | None:
    """The start time of process ``pid`` (seconds since the epoch), or None if none runs."""
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def this_boots(started: float, slack_s: float) -> bool:
    """Whether ``started`` (seconds since the epoch) can be a process's start time since this
    machine booted, within ``slack_s`` (two readings of one start time differ by less)."""
    import psutil

    return psutil.boot_time() - slack_s <= started <= time.time() + slack_s


def process_place() -> dict[str, str | None]:
    """Where this process's pid names it: its host, the kernel's boot id and its pid namespace
    (None where this system does not tell). A pid of another place names another process."""
    boot = namespace = None
    with contextlib.suppress(OSError):
        boot = BOOT_ID.read_text().strip()
    with contextlib.suppress(OSError):
        namespace = os.readlink(PID_NAMESPACE)
    return {"host": socket.gethostname(), "boot_id": boot, "pid_namespace": namespace}
