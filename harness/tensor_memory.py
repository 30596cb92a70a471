"""Tensor bytes as PyTorch's allocators count them: the one measure of peak memory that the
profiler, ``fit`` and ``suite`` report (caches and the process's other memory excluded)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from pathlib import Path

import torch
from torch.profiler import profile

# ``Device Type`` of CPU memory events in the profiler's Chrome trace (c10::DeviceType::CPU).
CPU_DEVICE_TYPE = 0


def live_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind ``tensors``."""
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors}
    return sum(storages.values())


def allocated_peak(prof: profile) -> int:
    """Most bytes the CPU allocator held beyond what it held when ``prof`` started.

    ``profile_memory=True`` records every allocation and free of PyTorch's CPU allocator (kernel
    workspaces included) with the allocator's running total (``Total Allocated``); the public
    way to read them is the Chrome trace (``export_chrome_trace``). Frees of blocks allocated
    before profiling are not reported, so the step must not free such blocks (the step's
    caller clears gradients before it).
    """
    with tempfile.TemporaryDirectory(prefix="sanbench-memory-") as folder:
        path = Path(folder) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text())["traceEvents"]
    records = [
        event
        for event in events
        if event.get("name") == "[memory]" and event["args"].get("Device Type") == CPU_DEVICE_TYPE
    ]
    if not records:
        return 0
    first = min(records, key=lambda event: (event["ts"], event["args"].get("Ev Idx", 0)))["args"]
    before = first["Total Allocated"] - first["Bytes"]
    return max(0, max(event["args"]["Total Allocated"] for event in records) - before)
