"""The environment recorded beside every result row."""

from __future__ import annotations

import cpuinfo
import pytest
import torch

from harness.environment import environment


@pytest.mark.slow  # py-cpuinfo's full probe (about 2 s)
def test_a_cpu_is_named_by_its_model_not_its_architecture() -> None:
    env = environment(torch.device("cpu"))
    assert env["device_name"] == cpuinfo.get_cpu_info()["brand_raw"]  # e.g. not "x86_64"
    assert env["threads"] == str(torch.get_num_threads())


@pytest.mark.slow  # py-cpuinfo's full probe (about 2 s)
def test_the_cpu_capability_torch_runs_is_recorded() -> None:
    """Issue 56: two profiles from machines whose CPUs differ in ISA are timed on different
    kernels; the comparison page can say so only if each run recorded it."""
    env = environment(torch.device("cpu"))
    assert env["cpu_capability"] == torch.backends.cpu.get_cpu_capability() != ""
