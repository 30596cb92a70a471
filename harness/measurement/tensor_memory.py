"""Tensor bytes as PyTorch's allocators count them: the one measure of peak memory that the
profiler, ``fit`` and ``suite`` report (caches and the process's other memory excluded)."""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

from harness.measurement.latency import synchronize

MB = 2**20  # bytes in the MB every table and page of sanbench shows (MiB)
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


@contextlib.contextmanager
def allocation_trace() -> Iterator[profile]:
    """``torch.profiler`` recording every allocation and free of the CPU allocator while the
    block runs (``profile_memory``), to be read by :func:`allocations_within`."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        yield prof


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


def allocated_peak(prof: profile, markers: dict[int, int] | None = None) -> int:
    """Most bytes of the blocks the CPU allocator handed out while ``prof`` ran that were held
    at once; ``markers`` (address of a 1-byte marker block -> bytes) adds, from the marker's
    allocation on, the bytes it stands for (see :meth:`StepPeak.own_now`).

    Blocks are paired by address: the free of a block allocated before ``prof`` started is left
    out, whether the profiler reports it or not (it reports one only when the address was
    allocated under an earlier profile, and then with that earlier block's size).
    """
    records = [event["args"] for event in _memory_records(_trace(prof))]
    markers = markers or {}
    last_allocation = {r["Addr"]: i for i, r in enumerate(records) if r["Bytes"] > 0}
    born: dict[int, int] = {}
    held = shift = peak = 0
    for index, record in enumerate(records):
        address, size = record["Addr"], record["Bytes"]
        if address in markers and last_allocation.get(address) == index:
            shift += markers[address]  # the marker lives to the end: its last allocation
        elif size > 0:
            born[address] = size
            held += size
        elif address in born:
            held -= born.pop(address)
        peak = max(peak, shift + held)
    return peak


class StepPeak:
    """The step-peak rule, one definition for ``sanbench profile`` and ``sanbench fit``: the
    run's own tensors at a step's start (``own``, bytes the caller counts) plus the most bytes
    the allocator held beyond that during the step (activations, workspaces, new gradients and
    optimizer state).

    CUDA: ``own + max_memory_allocated - memory_allocated`` at the start (after a reset of the
    peak; the caching allocator keeps its counts on the host, no synchronisation is needed).
    CPU, which has no such counters: the step runs under ``torch.profiler`` with
    ``profile_memory``, whose trace holds every allocation and free (:func:`allocated_peak`).
    The profiler does not see the free of a block allocated before it started: when the own
    tensors shrink during the step (Lightning frees the previous gradients after the forward),
    the caller says so with :meth:`own_now`, and from then on the step counts the new ``own``.
    """

    def __init__(self, device: torch.device, own: int) -> None:
        self.device = device
        self._own = own
        self._markers: dict[int, int] = {}
        self._kept: list[torch.UntypedStorage] = []
        if device.type == "cuda":
            self._start_total = torch.cuda.memory_allocated(device)
            torch.cuda.reset_peak_memory_stats(device)
            self._profile = None
        else:
            self._profile = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
            self._profile.__enter__()

    def own_now(self, own: int) -> None:
        """The run's own tensors take ``own`` bytes from here on. On the CPU the profiler does
        not see their frees, so the moment is marked in its trace; CUDA's allocator sees them
        (its count already fell: nothing to do)."""
        if self._profile is None or own == self._own:
            return
        # its allocation marks the moment in the trace (a bare storage: no operator runs)
        marker = torch.UntypedStorage(1)
        self._markers[marker.data_ptr()] = own - self._own
        self._kept.append(marker)
        self._own = own

    def stop(self) -> int:
        """The step's peak bytes."""
        if self._profile is None:
            return self._own + max(
                0, torch.cuda.max_memory_allocated(self.device) - self._start_total
            )
        prof, self._profile = self._profile, None
        prof.__exit__(None, None, None)
        start_own = self._own - sum(self._markers.values())
        peak = start_own + allocated_peak(prof, self._markers)
        self._kept.clear()
        return peak

    def abort(self) -> None:
        """The step failed (an error, a signal): stop the profiler."""
        if self._profile is not None:
            self._profile.__exit__(None, None, None)
            self._profile = None
        self._kept.clear()


def memory_step(step: Callable[[], None], device: torch.device, baseline: int) -> tuple[int, float]:
    """Run ``step`` once recording its peak memory; returns (peak bytes, seconds).

    Peak bytes by the step-peak rule (:class:`StepPeak`): ``baseline`` (the model's and the
    inputs' bytes, live before the step) plus the most the allocator held beyond its count at
    the start, caches and the process's other tensors excluded. The seconds (profiler overhead
    and first-call costs included) only size ``profile``'s timed blocks.
    """
    start = time.perf_counter()
    synchronize(device)
    peak = StepPeak(device, baseline)
    step()
    synchronize(device)
    return peak.stop(), time.perf_counter() - start
