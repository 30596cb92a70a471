"""One step-peak rule (``harness.measurement.tensor_memory.StepPeak``) for ``sanbench profile``
(``tensor_memory.memory_step``) and ``sanbench fit`` (``StepMemory``), issue 55.1: the run's own
tensors at the step's start plus the most the allocator held beyond its count then."""

from __future__ import annotations

import types

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from harness.measurement.tensor_memory import StepPeak, live_bytes, memory_step
from harness.measurement.training_memory import StepMemory


class _FakeCuda:
    """The allocator counters of a CUDA device holding ``other`` bytes of tensors that are not
    the step's (another run's, a cache of the process) and ``own`` of the step's."""

    def __init__(self, other: int, own: int) -> None:
        self.allocated = self.peak = other + own

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: None)
        monkeypatch.setattr(torch.cuda, "memory_allocated", lambda *a: self.allocated)
        monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda *a: self.peak)
        monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", self.reset)

    def reset(self, *args) -> None:
        self.peak = self.allocated

    def allocate(self, size: int) -> None:
        self.allocated += size
        self.peak = max(self.peak, self.allocated)


def test_the_profile_and_the_fit_count_a_cuda_step_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """A step holding 4 KiB of its own beside 1 MiB of the process's other tensors, growing by
    600 bytes then 200 more after freeing 300: both commands read 4 KiB + 600 bytes (the
    profile read every tensor on the device, 1 MiB more, on 023e32f)."""
    model = torch.nn.Linear(31, 32)  # 4096 bytes of parameters
    own = live_bytes(model.parameters())
    device = torch.device("cuda")
    fake = _FakeCuda(other=2**20, own=own)
    fake.install(monkeypatch)

    def step() -> None:
        fake.allocate(600)
        fake.allocate(-300)
        fake.allocate(200)

    profiled, _ = memory_step(step, device, baseline=own)
    memory = StepMemory(device)
    trainer = types.SimpleNamespace(optimizers=[])
    assert memory.wanted(trainer, model, {})
    memory.begin(trainer, model, {})
    step()
    memory.end(model)
    assert profiled == memory.peak_bytes == own + 600


def test_a_cpu_step_counts_what_it_allocates_not_what_an_earlier_profile_saw_freed() -> None:
    """A block allocated under an earlier profile and freed during the step is none of the
    step's (it is not counted at the start): its free must not hide 1 MiB the step allocates.
    The running total of the trace (the rule on 023e32f) read 0 bytes here."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True):
        earlier = torch.ones(2**18)  # 1 MiB, allocated while profiling
    peak = StepPeak(torch.device("cpu"), own=0)
    del earlier
    new = torch.ones(2**18)
    assert peak.stop() == 2**20
    del new


def test_a_cuda_step_that_frees_its_own_tensors_keeps_them_in_its_peak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The allocator sees a free on CUDA (the CPU profiler does not see one of a block older
    than the step): a step holding 4 KiB of gradients that grows by 600 bytes of activations,
    then frees the gradients (Lightning's ``zero_grad``) and makes 4 KiB of new ones, peaked at
    its own 4 KiB and those 600 bytes more. Until 2026-11-30 ``own_now`` lowered the CUDA
    count by the freed gradients: 4 KiB too few, every step of a GPU fit."""
    device = torch.device("cuda")
    gradients = 4096
    fake = _FakeCuda(other=2**20, own=gradients)
    fake.install(monkeypatch)
    peak = StepPeak(device, own=gradients)
    fake.allocate(600)
    fake.allocate(-gradients)
    peak.own_now(0)
    fake.allocate(gradients)
    fake.allocate(-600)
    assert peak.stop() == gradients + 600
