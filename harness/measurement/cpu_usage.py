"""What CPU a timed region actually got: the contention record of a timing.

Between two ``CpuSnapshot``s of this process: wall seconds, CPU seconds of all its threads
(``time.process_time``), the seconds its threads spent ready to run but waiting for a CPU (the
scheduler's run-queue delay, Linux ``/proc/self/task/*/schedstat``) and the load average at
both ends.

The rule (``CONTENDED_BELOW``): a region is *contended* when its threads got less than half of
the CPU time they were ready to use, ``cpu / (cpu + run-queue wait) < 0.5``, i.e. its wall time
is inflated more than about twofold by other processes. The rule looks at what this process's
own threads asked for, so a step that keeps only one of its threads busy is not penalised, and
asking for more threads than the machine has cores (``--threads 4`` on 2 cores) is contended.
The 1-minute load average is recorded beside it but decides nothing: it lags a region that
lasts a second and counts this process's own threads. Where the run-queue delay cannot be read
(no Linux schedstat) ``granted`` and ``contended`` are None: unknown, not "quiet".
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

CONTENDED_BELOW = 0.5
_TASKS = Path("/proc/self/task")


def run_queue_wait_s() -> float | None:
    """Seconds this process's live threads have waited on a run queue, or None if unknown."""
    total = 0
    try:
        for task in _TASKS.iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[1])
            except FileNotFoundError:  # the thread ended meanwhile
                continue
    except (OSError, IndexError, ValueError):
        return None
    return total / 1e9


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def load_averages_line() -> str:
    """The 1, 5 and 15 minute load averages as ``uptime`` prints them."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


@dataclass(frozen=True)
class CpuSnapshot:
    wall_s: float
    cpu_s: float
    wait_s: float | None
    load: float | None

    @classmethod
    def take(cls) -> CpuSnapshot:
        return cls(time.perf_counter(), time.process_time(), run_queue_wait_s(), load_average())


@dataclass(frozen=True)
class CpuUsage:
    """What a region got: ``cpu_share`` = CPU seconds / wall seconds (1.9 = 1.9 cores busy on
    average), ``granted`` = CPU seconds / (CPU + run-queue wait seconds)."""

    wall_s: float
    cpu_s: float
    wait_s: float | None
    load_before: float | None
    load_after: float | None

    @classmethod
    def between(cls, start: CpuSnapshot, end: CpuSnapshot) -> CpuUsage:
        wait = None
        if start.wait_s is not None and end.wait_s is not None:
            wait = max(end.wait_s - start.wait_s, 0.0)
        return cls(end.wall_s - start.wall_s, end.cpu_s - start.cpu_s, wait, start.load, end.load)

    def __add__(self, other: CpuUsage) -> CpuUsage:
        """Two regions together (e.g. the timed epochs of a fit), loads of the outer ends."""
        wait = None if self.wait_s is None or other.wait_s is None else self.wait_s + other.wait_s
        return CpuUsage(
            self.wall_s + other.wall_s,
            self.cpu_s + other.cpu_s,
            wait,
            self.load_before,
            other.load_after,
        )

    @property
    def cpu_share(self) -> float | None:
        return self.cpu_s / self.wall_s if self.wall_s > 0 else None

    @property
    def granted(self) -> float | None:
        if self.wait_s is None or self.cpu_s + self.wait_s <= 0:
            return None
        return self.cpu_s / (self.cpu_s + self.wait_s)

    @property
    def contended(self) -> bool | None:
        granted = self.granted
        return None if granted is None else granted < CONTENDED_BELOW


def usage_record(usage: CpuUsage | None, prefix: str = "") -> dict[str, float | bool | None]:
    """The columns a result row records (``prefix`` names the region, e.g. ``train_``); all
    None when nothing was timed."""
    values = (
        (usage.cpu_share, usage.granted, usage.contended, usage.load_before, usage.load_after)
        if usage is not None
        else (None,) * 5
    )
    names = ("cpu_share", "cpu_granted", "contended", "load_avg_before", "load_avg_after")
    return {prefix + name: value for name, value in zip(names, values, strict=True)}
