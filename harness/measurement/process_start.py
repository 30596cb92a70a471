"""When a process started, as the machine counts it (psutil): to tell a live process from a
later one that reuses its pid."""

from __future__ import annotations


def process_start_time(pid: int) -> float | None:
    """The start time of process ``pid`` (seconds since the epoch), or None if none runs."""
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None
