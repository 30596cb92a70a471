"""The contention record of a timed region (``harness.measurement.cpu_usage``)."""

from __future__ import annotations

import time

import pytest

from harness.measurement.cpu_usage import CONTENDED_BELOW, CpuSnapshot, CpuUsage, usage_record


def test_granted_share_and_the_contended_rule() -> None:
    start = CpuSnapshot(wall_s=0.0, cpu_s=0.0, wait_s=0.0, load=0.5)
    starved = CpuUsage.between(start, CpuSnapshot(wall_s=1.0, cpu_s=0.3, wait_s=0.7, load=4.0))
    assert starved.cpu_share == pytest.approx(0.3) and starved.granted == pytest.approx(0.3)
    assert starved.contended and starved.load_before == 0.5 and starved.load_after == 4.0
    # two threads, each busy half the time and never kept waiting: quiet, although the CPU
    # share (1.0) is half of the threads
    parallel = CpuUsage.between(start, CpuSnapshot(wall_s=1.0, cpu_s=1.0, wait_s=0.0, load=1.0))
    assert parallel.granted == 1.0 and parallel.contended is False
    edge = CpuUsage.between(start, CpuSnapshot(1.0, CONTENDED_BELOW, 1 - CONTENDED_BELOW, 1.0))
    assert edge.contended is False
    both = starved + parallel
    assert both.granted == pytest.approx(1.3 / 2.0) and both.load_after == 1.0


def test_unknown_wait_is_unknown_not_quiet() -> None:
    usage = CpuUsage.between(CpuSnapshot(0.0, 0.0, None, None), CpuSnapshot(1.0, 1.0, None, None))
    assert usage.granted is None and usage.contended is None
    assert usage_record(usage, "train_")["train_contended"] is None
    assert set(usage_record(None)) == set(usage_record(usage))


def test_a_busy_thread_is_running_or_waiting_all_the_time() -> None:
    start = CpuSnapshot.take()
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        pass
    usage = CpuUsage.between(start, CpuSnapshot.take())
    # one spinning thread: on a CPU (cpu_s) or kept waiting for one (wait_s), however loaded
    assert usage.wait_s is not None  # Linux schedstat
    assert 0.8 * usage.wall_s < usage.cpu_s + usage.wait_s < 1.2 * usage.wall_s
    assert usage.granted == pytest.approx(usage.cpu_s / (usage.cpu_s + usage.wait_s))
