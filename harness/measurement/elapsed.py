"""Wall seconds of host work since a start, nothing synchronised and no torch imported: a
suite's run, ``reproduce``'s session, an epoch's line, a memory prediction, the tiles' warm-up
(steps on a device are timed by ``harness.measurement.latency``)."""

from __future__ import annotations

import time


class Elapsed:
    """Wall seconds since it was made or last :meth:`restart`-ed (``time.perf_counter``)."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    def restart(self) -> None:
        self._start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self._start
