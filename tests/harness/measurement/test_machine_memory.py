"""The machine's memory: its physical memory holds what it has available for a new process."""

from __future__ import annotations

from harness.measurement.machine_memory import available_bytes, physical_bytes


def test_the_available_memory_is_a_part_of_the_physical_memory() -> None:
    assert 0 < available_bytes() <= physical_bytes()
