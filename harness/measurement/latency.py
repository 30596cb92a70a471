"""Wall time of steps and of stretches of a run, with the CPU each timing got
(``harness.measurement.cpu_usage``); accelerators are synchronised at the clock's readings only.

- :func:`time_steps`: ``profile``'s timed blocks of one step (median and IQR over blocks);
- :class:`Stopwatch`: a clock that is paused and resumed (``fit``'s training time, validation
  and memory measurement left out) and a single timed pass (:meth:`Stopwatch.timed`).

Host work that needs no synchronisation is timed by ``harness.measurement.elapsed`` (no torch).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import torch
from torch.utils import benchmark

from harness.measurement.cpu_usage import CpuSnapshot, CpuUsage

# A timed block repeats a short step until it lasts about this long, so that timer overhead and
# CUDA synchronisation stay negligible; longer steps are timed one by one.
TARGET_BLOCK_S = 0.05


def synchronize(device: torch.device) -> None:
    """Wait for ``device``'s queued work (CUDA); nothing to wait for on CPU."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_steps(
    step: Callable[[], None], repeats: int, estimate: float, device: torch.device
) -> tuple[benchmark.Measurement, CpuUsage]:
    """``repeats`` timed blocks of ``max(1, TARGET_BLOCK_S / estimate)`` steps, no warm-up of
    their own (the memory step was it); accelerators are synchronised around each block.
    Also returns what CPU the blocks got (``harness.measurement.cpu_usage``)."""
    number = max(1, round(TARGET_BLOCK_S / max(estimate, 1e-9)))
    times = []
    start_usage = CpuSnapshot.take()
    for _ in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(number):
            step()
        synchronize(device)
        times.append(time.perf_counter() - start)
    usage = CpuUsage.between(start_usage, CpuSnapshot.take())
    task = benchmark.TaskSpec(stmt="step()", setup="", num_threads=torch.get_num_threads())
    return benchmark.Measurement(number_per_run=number, raw_times=times, task_spec=task), usage


class Stopwatch:
    """Seconds of the stretches between :meth:`resume` and :meth:`pause`, summed, and what CPU
    they got (``cpu``, None before the first pause); ``device`` is synchronised at each reading,
    so the work queued before it is counted where it was asked for."""

    def __init__(self, device: torch.device, seconds: float = 0.0) -> None:
        self.device = device
        self.seconds = seconds  # the stretches paused so far
        self.cpu: CpuUsage | None = None
        self._started: float | None = None
        self._cpu_start: CpuSnapshot | None = None

    @property
    def running(self) -> bool:
        return self._started is not None

    def resume(self) -> None:
        synchronize(self.device)
        self._started = time.perf_counter()
        self._cpu_start = CpuSnapshot.take()

    def pause(self) -> None:
        """End the running stretch (nothing when none runs)."""
        if self._started is None or self._cpu_start is None:
            return
        synchronize(self.device)
        self.seconds += time.perf_counter() - self._started
        self._started = None
        usage = CpuUsage.between(self._cpu_start, CpuSnapshot.take())
        self.cpu = usage if self.cpu is None else self.cpu + usage

    def elapsed(self) -> float:
        """Seconds so far, the running stretch included (no synchronisation)."""
        running = 0.0 if self._started is None else time.perf_counter() - self._started
        return self.seconds + running

    @classmethod
    def timed(cls, work: Callable[[], object], device: torch.device) -> tuple[float, CpuUsage]:
        """Seconds ``work()`` takes on ``device`` and what CPU it got (one stretch)."""
        watch = cls(device)
        watch.resume()
        work()
        watch.pause()
        assert watch.cpu is not None
        return watch.seconds, watch.cpu
