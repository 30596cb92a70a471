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


def _trace(prof: profile) -> list[dict]:
    """The events of ``prof``'s Chrome trace (``export_chrome_trace``, the public way to read
    its memory records)."""
    with tempfile.TemporaryDirectory(prefix="sanbench-memory-") as folder:
        path = Path(folder) / "trace.json"
        prof.export_chrome_trace(str(path))
        return json.loads(path.read_text())["traceEvents"]


def _memory_records(events: list[dict]) -> list[dict]:
    """The CPU allocator's records among ``events``, in order.

    ``profile_memory=True`` records every allocation and free of PyTorch's CPU allocator (kernel
    workspaces included) with the allocator's running total (``Total Allocated``).
    """
    records = [
        event
        for event in events
        if event.get("name") == "[memory]" and event["args"].get("Device Type") == CPU_DEVICE_TYPE
    ]
    records.sort(key=lambda event: (event["ts"], event["args"].get("Ev Idx", 0)))
    return records


def allocations_within(prof: profile, labels: list[str]) -> list[list[int]]:
    """For each ``torch.profiler.record_function(label)`` range of ``prof``, the CPU allocator's
    allocations (bytes, positive) and frees (negative) inside it, in order."""
    events = _trace(prof)
    spans = {
        event["name"]: (event["ts"], event["ts"] + event["dur"])
        for event in events
        if event.get("cat") == "user_annotation" and event.get("name") in labels
    }
    records = _memory_records(events)
    return [
        [r["args"]["Bytes"] for r in records if spans[label][0] <= r["ts"] <= spans[label][1]]
        for label in labels
    ]


def allocated_peak(prof: profile) -> int:
    """Most bytes the CPU allocator held beyond what it held when ``prof`` started.

    Frees of blocks allocated before profiling are not reported, so the step must not free such
    blocks (the step's caller clears gradients before it).
    """
    records = [event["args"] for event in _memory_records(_trace(prof))]
    if not records:
        return 0
    before = records[0]["Total Allocated"] - records[0]["Bytes"]
    return max(0, max(record["Total Allocated"] for record in records) - before)
