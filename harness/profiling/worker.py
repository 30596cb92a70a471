"""Child process that measures the points of a sweep, encoder after encoder, under a memory limit.

Run as ``python -m harness.profiling.worker CONFIG_JSON``. Protocol: after start-up the worker
writes ``{"ready": ...}``; then for each JSON request line on stdin it writes one JSON reply
line. Replies go to the original stdout only; ``sys.stdout`` is pointed at stderr (a log file
the parent chose) so that prints from libraries cannot corrupt the protocol.

Memory limit on CPU: ``RLIMIT_DATA`` = the worker's data segment after start-up + the budget.
``RLIMIT_DATA`` counts private writable mappings (heap and, since Linux 4.7, anonymous mmap,
where large tensors live), i.e. memory the process can actually make resident. ``RLIMIT_AS``
would also count address space torch and the allocators reserve but never touch (glibc arenas,
thread stacks; about 600 MB of VmSize vs 200 MB of VmData after ``import torch``), so a budget
on it would not mean what it says. A failed allocation raises in torch and is reported as
``oom``; the parent then restarts the worker, since a failed allocation can leave the
allocator's retained memory (jemalloc) or CUDA's cache fragmented. On CUDA the budget is
``torch.cuda.set_per_process_memory_fraction``.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import resource
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

import torch

from encoders import build_encoder
from encoders.layers import fused_tiles
from encoders.layers.tanh_attention import chunked_sizes, recording_tiles, tile_plan
from harness.profiling.attention_cost import floor_ns_per_pair
from harness.profiling.measure import (
    MB,
    Point,
    encoder_options,
    is_oom,
    make_step,
    measure,
    synthetic_batch,
)

WARMUP = {"seq_len": 4, "batch_size": 2}


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this worker when the sweep process dies (e.g. killed -9)."""
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)


def vm_data_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("VmData missing from /proc/self/status")


def apply_memory_limit(device: torch.device, budget_mb: float | None) -> float | None:
    """Apply the per-point budget (see the module docstring); returns the CPU baseline in MB."""
    if budget_mb is None:
        return None
    if device.type == "cuda":
        total = torch.cuda.get_device_properties(device).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, budget_mb * MB / total), device)
        return None
    baseline = vm_data_bytes()
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (baseline + int(budget_mb * MB), hard))
    return baseline / MB


class Models:
    """Builds the model of a point (input width = dim, the papers' default model width), keeps
    the last one for the next point of the same encoder, and warms each (encoder, mode) up once
    with a tiny step so that first-call costs stay out of the measured steps."""

    def __init__(self, device: torch.device, compile_model: bool):
        self.device = device
        self.compile_model = compile_model
        self.key: tuple[str, str, int] | None = None
        self.model: torch.nn.Module | None = None
        self.eager: torch.nn.Module | None = None  # the model uncompiled (same parameters)
        self.warm: set[tuple[str, str, int, str]] = set()

    def get(self, point: Point) -> torch.nn.Module:
        options = encoder_options(point)
        key = (point.encoder, repr(sorted(options.items())), point.dim)
        if key != self.key:
            self.key, self.model, self.eager = None, None, None
            gc.collect()
            torch.manual_seed(0)
            model = build_encoder(point.encoder, input_dim=point.dim, **options)
            self.eager = model.to(self.device)
            self.model = torch.compile(self.eager) if self.compile_model else self.eager
            self.key = key
        if (*key, point.mode) not in self.warm and not self.compile_model:
            tiny = Point(**{**point.__dict__, **WARMUP})
            make_step(self.model, *synthetic_batch(tiny, self.device), point.mode, "fp32")()
            self.warm.add((*key, point.mode))
        assert self.model is not None
        return self.model

    def forget(self) -> None:
        self.key, self.model, self.eager = None, None, None
        gc.collect()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()


def compile_seconds(
    model: torch.nn.Module, point: Point, device: torch.device, dtype: str
) -> float:
    """Seconds of the first call at this shape: torch.compile's tracing and code generation plus
    one step (recorded apart from the timed steps, which follow it)."""
    start = time.perf_counter()
    make_step(model, *synthetic_batch(point, device), point.mode, dtype)()
    return time.perf_counter() - start


def run_point(request: dict[str, Any], models: Models) -> dict[str, Any]:
    """Measure one point; never raises."""
    point = Point(**request["point"])
    device = models.device
    try:
        model = models.get(point)
        extra = {}
        if models.compile_model:
            extra["compile_s"] = compile_seconds(model, point, device, request["dtype"])
        compiled_tiles = bool(chunked_sizes(models.eager)) and fused_tiles.available(device.type)
        with recording_tiles() as ran:  # which tiles the measured steps ran
            metrics = measure(
                model, point, device, request["dtype"], request["repeats"], compiled_tiles
            )
        if models.compile_model:  # what compiling bought: the same point, uncompiled
            assert models.eager is not None
            eager = measure(models.eager, point, device, request["dtype"], request["repeats"])
            extra["eager_time_ms_median"] = eager["time_ms_median"]
            extra["eager_peak_mem_mb"] = eager["peak_mem_mb"]
        params = sum(p.numel() for p in model.parameters())
        extra["attention_tiles"] = tile_plan(models.eager, device.type, point.mode, ran)
        if metrics["attention_ns_per_pair"] is not None:  # beside the floor, measured here
            extra["attention_floor_ns_per_pair"] = floor_ns_per_pair(device.type)
        return {"status": "ok", "params": params, **metrics, **extra}
    except Exception as error:
        status = "oom" if is_oom(error) else "error"
        if status == "error":
            traceback.print_exc()
        models.forget()
        return {"status": status, "message": f"{type(error).__name__}: {error}"[:500]}
    finally:
        gc.collect()
        if device.type == "cuda":
            torch.cuda.empty_cache()


def send(channel: TextIO, message: dict[str, Any]) -> None:
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def main(argv: list[str]) -> int:
    config = json.loads(argv[0])
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the sweep process handles Ctrl-C
    die_with_parent()
    for module in config["imports"]:
        importlib.import_module(module)
    device = torch.device(config["device"])
    if config["threads"] is not None:
        torch.set_num_threads(config["threads"])
    models = Models(device, config["compile"])
    # Warm up every lazily initialised piece (profiler, autograd) before the limit.
    for mode in ("infer", "train"):
        warmup = {**WARMUP, "encoder": config["encoder"], "options": config["options"]}
        warmup = {**warmup, "mode": mode, "dim": config["dim"]}
        run_point({"point": warmup, "dtype": config["dtype"], "repeats": 1}, models)
    # Every point collects garbage (the last point's tensors) before it is measured; with torch
    # imported that scans ~300k objects (0.1 s, 13 s of a quick sweep) unless they are frozen.
    gc.freeze()
    baseline_mb = apply_memory_limit(device, config["max_memory_mb"])
    # The sweep records its own environment; only the threads can differ in the worker.
    threads = {"threads": str(torch.get_num_threads())}
    send(channel, {"ready": True, "environment": threads, "baseline_mb": baseline_mb})
    for line in sys.stdin:
        send(channel, run_point(json.loads(line), models))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
