"""The machine's memory as Linux counts it: its physical memory (``os.sysconf``), against which
``fit`` checks an encoder's parameters before any work, and what it has available for a new
process (``psutil``), of which a CPU sweep's default budget is a share."""

from __future__ import annotations

import os


def physical_bytes() -> int:
    """This machine's physical memory in bytes (pages times the page size)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def available_bytes() -> int:
    """Bytes the machine can give a new process without swapping (``psutil``'s ``available``)."""
    import psutil

    return int(psutil.virtual_memory().available)
