"""The process's memory as Linux counts it (``/proc/self/status``): the resident set's peak
(``VmHWM``), which ``profile`` records beside the tensor bytes, and the data segment
(``VmData``), from which a worker's memory budget is set (the machine's memory:
``machine_memory``)."""

from __future__ import annotations

from pathlib import Path

STATUS = Path("/proc/self/status")


def _status_kib(field: str) -> int | None:
    """A ``/proc/self/status`` field in KiB (``VmHWM: 123 kB``), None when it is missing."""
    for line in STATUS.read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return None


def vm_data_bytes() -> int:
    """Bytes of the process's data segment (``VmData``, its heap and anonymous mappings)."""
    kib = _status_kib("VmData")
    if kib is None:
        raise RuntimeError(f"VmData missing from {STATUS}")
    return kib * 1024


class PeakRss:
    """Peak resident set size of this process since ``reset`` (Linux ``VmHWM``).

    Writing 5 to ``/proc/self/clear_refs`` resets the high-water mark (Linux >= 4.0), so the
    peak covers only the steps measured after the reset. Unavailable elsewhere (``None``).
    """

    clear_refs = Path("/proc/self/clear_refs")

    def reset(self) -> bool:
        try:
            self.clear_refs.write_text("5")
        except OSError:
            return False
        return True

    def peak_mb(self) -> float | None:
        kib = _status_kib("VmHWM")
        return None if kib is None else kib / 1024
