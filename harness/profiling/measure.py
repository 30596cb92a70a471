"""One (encoder, length, mode) point's measured row, from ``harness.measurement``'s trackers,
and which failures of a point are out-of-memory or spoil the device.

Per point (on CUDA after ``first_call_at_shape``): one warm-up step, during which the peak
memory is recorded (``tensor_memory.memory_step``; the resident set's peak beside it,
``process_memory``), then ``repeats`` timed steps (``latency.time_steps``: blocks of steps
when a step is shorter than ``TARGET_BLOCK_S``); the median and IQR are
taken over them, and what CPU the timed steps got is recorded beside them (CPU share, the share
of the CPU they asked for that they got, load average before and after; ``contended`` by the
rule of ``harness.measurement.cpu_usage``). FLOPs and the predicted memory come from a
meta-tensor run (``harness.memory_prediction.step``), not from a real step.

The point, its synthetic inputs and the step are ``harness.measurement.profiled_step``'s.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

import torch

from harness.measurement.attention_cost import step_tile_ns_per_pair
from harness.measurement.cpu_usage import usage_record
from harness.measurement.gpu_process import gpu_process_memory
from harness.measurement.latency import time_steps
from harness.measurement.process_memory import PeakRss
from harness.measurement.profiled_step import Point, make_step, synthetic_batch
from harness.measurement.tensor_memory import MB, live_bytes, memory_step

# A point whose IQR exceeds this share of its median is flagged ``noisy``.
NOISY_IQR_SHARE = 0.25


# What the message of a failed allocation holds: a CPU allocator's (an rlimit, exhausted RAM),
# CUDA's, and cuBLAS's or cuDNN's when they cannot allocate their workspaces. cuBLAS's
# CUBLAS_STATUS_NOT_INITIALIZED "when calling cublasCreate(handle)" is its usual symptom of a
# device without memory left for its handle (the point is tried again at a longer length).
OOM_MARKERS = (
    "can't allocate memory",
    "Cannot allocate memory",
    "bad_alloc",
    "out of memory",
    "CUBLAS_STATUS_ALLOC_FAILED",
    "CUBLAS_STATUS_NOT_INITIALIZED",
    "CUDNN_STATUS_ALLOC_FAILED",  # cuDNN 8; cuDNN 9 names the device's and the host's:
    "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",
    "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
)
# What the message of a CUDA, cuBLAS, cuDNN or Triton error holds (Triton's driver prefixes
# CUDA's own words with "Triton Error [CUDA]: "; its out-of-memory is "... out of memory", above).
DEVICE_ERROR_MARKERS = (
    "CUDA error", "CUDA driver error", "CUBLAS_STATUS", "CUDNN_STATUS", "Triton Error [CUDA]",
)  # fmt: skip


def is_oom(error: BaseException) -> bool:
    """True for a failed allocation: MemoryError, CUDA's OOM, a failed CPU allocation (rlimit or
    exhausted RAM), cuBLAS's or cuDNN's failed workspace allocation and cuBLAS's handle that
    could not be created (``CUBLAS_STATUS_NOT_INITIALIZED``)."""
    if isinstance(error, MemoryError | torch.OutOfMemoryError):
        return True
    return isinstance(error, RuntimeError) and any(m in str(error) for m in OOM_MARKERS)


def spoils_device(error: BaseException) -> bool:
    """True for a CUDA, cuBLAS, cuDNN or Triton error. After some (an illegal memory access, a
    device-side assert: CUDA's documentation says the process must be restarted) every later
    CUDA call of the process fails, and the message does not always say which kind it was."""
    return any(marker in str(error) for marker in DEVICE_ERROR_MARKERS)


def first_call_at_shape(step: Callable[[], None], device: torch.device) -> None:
    """On CUDA, one unmeasured step at the point's shape: it makes what later steps reuse (the
    tiles' Triton variants for new tile offsets, cuBLAS's and cuDNN's algorithm choices and
    workspaces), whose buffers ``max_memory_allocated`` would count in the measured step; the
    worker's warm-up ran a smaller shape. On CPU the tiles are one prebuilt library and nothing
    is made per shape, so no step is spent."""
    if device.type == "cuda":
        step()


def nvml_columns(device: torch.device) -> dict[str, float | str | None]:
    """The NVML column of a point (``gpu_process.gpu_process_memory``: the GPU found by PCI bus
    id) and, when it is empty on a CUDA device, the reason as the row's ``message`` (or, beside
    a value, NVML's failure to shut down). NVML's failures never cost the point its numbers."""
    used, why = gpu_process_memory(device)
    return {"gpu_process_mem_mb": used, **({"message": why} if why else {})}


def point_metrics(
    model: torch.nn.Module,
    point: Point,
    device: torch.device,
    dtype: str,
    repeats: int,
    tile_cost: bool = False,
) -> dict[str, float | int | bool | str | None]:
    """Every measured metric of one point, and on CUDA why the NVML column is empty when it is
    (``message``); allocation failures propagate (see ``is_oom``).
    ``tile_cost``: on CPU, one profiled step more gives the compiled tanh-attention tiles' time
    per pair (``attention_cost``)."""
    x, mask = synthetic_batch(point, device)
    step = make_step(model, x, mask, point.mode, dtype)
    model.zero_grad(set_to_none=True)
    gc.collect()
    baseline = live_bytes([*model.parameters(), *model.buffers(), x, mask])
    rss = PeakRss()
    has_rss = rss.reset()
    first_call_at_shape(step, device)
    peak, estimate = memory_step(step, device, baseline)
    timing, usage = time_steps(step, repeats, estimate, device)
    ns_per_pair = step_tile_ns_per_pair(step) if tile_cost and device.type == "cpu" else None
    return {
        "time_ms_median": timing.median * 1e3,
        "time_ms_iqr": timing.iqr * 1e3,
        "time_blocks": len(timing.times),
        "noisy": timing.iqr > NOISY_IQR_SHARE * timing.median,
        **usage_record(usage),
        "peak_mem_mb": peak / MB,
        "peak_rss_mb": rss.peak_mb() if has_rss else None,
        **nvml_columns(device),
        "attention_ns_per_pair": ns_per_pair,
    }
