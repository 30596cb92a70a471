"""The environment recorded beside every result row."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import cpuinfo
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.measurement.environment import environment


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


GPU_PROPERTIES = SimpleNamespace(pci_domain_id=0, pci_bus_id=0x5E, pci_device_id=0, uuid="a-b-c")
PRECISIONS = st.sampled_from(["tf32", "ieee", "none"])


@pytest.fixture
def precision_switches() -> Iterator[None]:
    """torch's TF32 switches as they were, after the test (not attributes monkeypatch can
    restore)."""
    switches = (
        torch.backends,
        torch.backends.cuda.matmul,
        torch.backends.cudnn,
        torch.backends.cudnn.conv,
        torch.backends.cudnn.rnn,
    )
    before = [switch.fp32_precision for switch in switches]
    yield
    for switch, precision in zip(switches, before, strict=True):
        switch.fp32_precision = precision


@given(matmul=PRECISIONS, conv=PRECISIONS, rnn=PRECISIONS, cudnn=PRECISIONS)
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_cuda_runs_tf32_settings_are_recorded_as_set_through_the_new_switches(
    matmul: str, conv: str, rnn: str, cudnn: str, precision_switches: None
) -> None:
    """Issue 57.9: cuDNN's TF32 is on by default, so an "fp32" CUDA run's convolutions and RNNs
    ran at TF32's 10-bit mantissa: a CUDA run records each switch (a CPU run has no TF32).
    Outside tester: after ``torch.backends.cudnn.conv.fp32_precision = "ieee"`` (torch's new
    API; conv and rnn differ) reading ``allow_tf32`` raised, so ``profile --device cuda``
    exited 1 and a fit died before writing metrics.json."""
    torch.backends.cudnn.fp32_precision = cudnn
    torch.backends.cuda.matmul.fp32_precision = matmul
    torch.backends.cudnn.conv.fp32_precision = conv
    torch.backends.cudnn.rnn.fp32_precision = rnn
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.cuda, "get_device_name", lambda device: "a GPU")
        patch.setattr(torch.cuda, "get_device_properties", lambda index: GPU_PROPERTIES)
        env = environment(torch.device("cuda", 0))
    expected = {
        "tf32_matmul": torch.backends.cuda.matmul.fp32_precision == "tf32",
        "tf32_cudnn_conv": torch.backends.cudnn.conv.fp32_precision == "tf32",
        "tf32_cudnn_rnn": torch.backends.cudnn.rnn.fp32_precision == "tf32",
    }
    for key, value in expected.items():
        assert env[key] == str(value), key
    assert "tf32_cudnn_conv" not in environment(torch.device("cpu"))


def test_a_cuda_run_records_which_gpu_ran_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside tester (issue 57): the manifest named the GPU's model only, which the GPUs of a
    node share; now its index, PCI bus id and UUID."""
    properties = GPU_PROPERTIES
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: "a GPU")
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: properties)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    env = environment(torch.device("cuda"))
    assert (env["device_index"], env["device_pci_bus_id"], env["device_uuid"]) == (
        "1",
        "00000000:5E:00.0",
        "a-b-c",
    )
    assert environment(torch.device("cuda", 3))["device_index"] == "3"
    assert "device_uuid" not in environment(torch.device("cpu"))


def test_the_machine_is_described_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """H20.2: reproduce described the machine itself (reproduce.machine)."""
    import os
    import platform

    from harness.measurement import environment as env

    monkeypatch.setattr(env, "cpu_model", lambda: "CPU X")  # py-cpuinfo's probe takes 2 s
    assert env.machine() == (
        f"CPU X, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"torch {torch.__version__}"
    )
