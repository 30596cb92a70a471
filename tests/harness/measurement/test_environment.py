"""The environment recorded beside every result row."""

from __future__ import annotations

import cpuinfo
import pytest
import torch

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


@pytest.mark.parametrize("matmul, cudnn", [(False, True), (True, False)])
def test_a_cuda_runs_tf32_settings_are_recorded(
    matmul: bool, cudnn: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 57.9: cuDNN's TF32 is on by default, so an "fp32" CUDA run's convolutions and RNNs
    ran at TF32's 10-bit mantissa: a CUDA run records both switches (a CPU run has no TF32)."""
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: "a GPU")
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn
    try:  # torch's switches are not attributes monkeypatch can restore
        env = environment(torch.device("cuda", 0))
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = before
    assert (env["tf32_matmul"], env["tf32_cudnn"]) == (str(matmul), str(cudnn))
    assert "tf32_cudnn" not in environment(torch.device("cpu"))
