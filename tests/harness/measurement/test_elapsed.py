"""``Elapsed``: wall seconds since its start or its last restart, read from one clock."""

from __future__ import annotations

import pytest

import harness.measurement.elapsed as elapsed_module
from harness.measurement.elapsed import Elapsed


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


def test_seconds_since_the_start_and_since_a_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(elapsed_module, "time", clock)
    elapsed = Elapsed()
    clock.now += 2.5
    assert elapsed.seconds == 2.5
    elapsed.restart()
    clock.now += 1.0
    assert elapsed.seconds == 1.0
