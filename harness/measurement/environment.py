"""What a result row needs to be reproducible: device, versions, commit, allocator."""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from pathlib import Path

import torch


@functools.cache
def git_commit() -> str:
    """The commit of the checkout this package runs from ('unknown' outside git)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=Path(__file__).resolve().parent,
        capture_output=True,
        text=True,
        timeout=5,
    ).stdout.strip()
    return out.stdout.strip() + ("-dirty" if dirty else "")


def allocator() -> str:
    """The host allocator in use: 'jemalloc' when preloaded, else 'glibc'."""
    return "jemalloc" if "jemalloc" in os.environ.get("LD_PRELOAD", "") else "glibc"


@functools.cache
def cpu_model() -> str:
    """The CPU's model name (e.g. 'AMD EPYC 7B13'), as py-cpuinfo reads it; the architecture
    ('x86_64') only where it cannot."""
    import cpuinfo

    return cpuinfo.get_cpu_info().get("brand_raw") or platform.processor() or platform.machine()


def machine() -> str:
    """The machine in one line: CPU model, core count, OS and torch version (a reproduction's
    manifest and tables)."""
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu_model()}, {os.cpu_count()} cores, {system}, torch {torch.__version__}"


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return cpu_model()


def tf32(device: torch.device) -> dict[str, str]:
    """On CUDA, whether float32 matrix products (cuBLAS), convolutions and RNNs (cuDNN) may run in
    TF32 (10-bit mantissa): cuDNN's is on by default, so an "fp32" run is partly TF32. Each read
    from torch's ``fp32_precision`` switches where it has them (a switch set to "none" inherits
    its parent's: cuDNN's, then torch's), else from ``allow_tf32`` (torch < 2.9): reading
    ``allow_tf32`` raises once a user set conv and rnn apart through the new switches. Nothing
    elsewhere (no TF32 on a CPU)."""
    if device.type != "cuda":
        return {}
    backends = torch.backends
    if not hasattr(backends.cuda.matmul, "fp32_precision"):
        cudnn = str(backends.cudnn.allow_tf32)
        return {
            "tf32_matmul": str(backends.cuda.matmul.allow_tf32),
            "tf32_cudnn_conv": cudnn,
            "tf32_cudnn_rnn": cudnn,
        }
    return {
        "tf32_matmul": str(is_tf32(backends.cuda.matmul, backends)),
        "tf32_cudnn_conv": str(is_tf32(backends.cudnn.conv, backends.cudnn, backends)),
        "tf32_cudnn_rnn": str(is_tf32(backends.cudnn.rnn, backends.cudnn, backends)),
    }


def is_tf32(*switches: object) -> bool:
    """Whether the first of ``switches`` (an operator's, then its parents') whose
    ``fp32_precision`` is not "none" says "tf32"; all "none" is IEEE float32."""
    for switch in switches:
        precision = getattr(switch, "fp32_precision", "none")
        if precision != "none":
            return precision == "tf32"
    return False


def gpu_identity(device: torch.device) -> dict[str, str]:
    """On CUDA, which GPU ran: torch's index (``cuda`` alone: the current one), its PCI bus id
    in NVML's spelling and its UUID, which name it beyond its model's name (several GPUs of a
    node share that). Nothing elsewhere."""
    if device.type != "cuda":
        return {}
    from harness.measurement.gpu_process import nvml_bus_id

    index = device.index if device.index is not None else torch.cuda.current_device()
    properties = torch.cuda.get_device_properties(index)
    return {
        "device_index": str(index),
        "device_pci_bus_id": nvml_bus_id(properties),
        "device_uuid": str(properties.uuid),
    }


def environment(device: torch.device) -> dict[str, str]:
    """Columns recorded beside every measurement (on CUDA the GPU's identity,
    :func:`gpu_identity`, and the TF32 switches, :func:`tf32`)."""
    return {
        "device": device.type,
        "device_name": device_name(device),
        "torch": torch.__version__,
        "cuda": torch.version.cuda or "",
        "python": platform.python_version(),
        "threads": str(torch.get_num_threads()),
        "cpu_count": str(os.cpu_count()),
        # the vector instructions torch's CPU kernels use (ATEN_CPU_CAPABILITY can lower it)
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "allocator": allocator(),
        "commit": git_commit(),
        **gpu_identity(device),
        **tf32(device),
    }
