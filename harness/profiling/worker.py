"""Child process that measures the points of a sweep, encoder after encoder, under a memory limit.

Run as ``python -m harness.profiling.worker CONFIG_JSON``. Protocol: after start-up the worker
writes ``{"ready": ...}``; then for each JSON request line on stdin it writes one JSON reply
line. Replies go to the original stdout only; ``sys.stdout`` is pointed at stderr (a log file
the parent chose) so that prints from libraries cannot corrupt the protocol.

A warning of sanbench's own classes (the eager tiles' ``EagerTilesWarning``, quoting the
compiler) is written to the log and sent with the next message, for the sweep to say on its
console (``worker_process.WorkerProcess``): the log alone kept it from the user.

Memory limit on CPU: ``RLIMIT_DATA`` = the worker's data segment after start-up + the budget.
``RLIMIT_DATA`` counts private writable mappings (heap and, since Linux 4.7, anonymous mmap,
where large tensors live), i.e. memory the process can actually make resident. ``RLIMIT_AS``
would also count address space torch and the allocators reserve but never touch (glibc arenas,
thread stacks; about 600 MB of VmSize vs 200 MB of VmData after ``import torch``), so a budget
on it would not mean what it says. A failed allocation raises in torch and is reported as
``oom``; the parent then restarts the worker, since a failed allocation can leave the
allocator's retained memory (jemalloc) or CUDA's cache fragmented.

Memory limit on CUDA: the same budget beyond the start-up footprint, in the caching allocator,
which is all ``torch.cuda.set_per_process_memory_fraction`` can cap: its reserve may grow to what
it holds after start-up (cache emptied) + the budget. The CUDA context and what libraries take
outside the allocator (cuBLAS's and cuDNN's handles) are not counted, while on CPU
``RLIMIT_DATA`` counts all of the process's private memory.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import resource
import sys
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TextIO

import torch

from encoders import build_encoder
from encoders.layers import compiled_tiles
from encoders.layers.tanh_attention import chunked_sizes, recording_tiles, tile_plan
from harness.errors import failure_line
from harness.launch.processes import die_with_parent
from harness.measurement.attention_cost import floor_ns_per_pair
from harness.measurement.gpu_process import reserved_bytes, total_bytes
from harness.measurement.latency import Stopwatch
from harness.measurement.process_memory import vm_data_bytes
from harness.measurement.profiled_step import (
    MODES,
    Point,
    encoder_options,
    make_step,
    synthetic_batch,
)
from harness.measurement.tensor_memory import MB
from harness.profiling.measure import is_oom, point_metrics, spoils_device
from harness.profiling.worker_process import point_request
from harness.quiet import OUR_PACKAGES
from reports.contracts.profile_run import ERROR, OK, OOM

# The warm-up's batch size and its first length; see ``warmup_points``.
WARMUP_BATCH = 2
WARMUP_SHORTEST = 4


class StepError(Exception):
    """``error``, raised by the named step of a point (its build, warm-up, or timed step); its
    message is one line (``errors.failure_line``: a CUDA message's lines joined by " | ")."""

    def __init__(self, step: str, error: Exception):
        super().__init__(f"{step}: {failure_line(error)}")
        self.error = error


@contextmanager
def step_named(step: str) -> Iterator[None]:
    """Raise what fails inside as a :class:`StepError` of ``step``."""
    try:
        yield
    except StepError:
        raise
    except Exception as error:
        raise StepError(step, error) from error


def warmup_points(point: Point) -> list[Point]:
    """The shapes that may warm ``point``'s encoder and mode up, tried in turn: batch
    ``WARMUP_BATCH`` (at most the point's) at L = 4, 8, 16, ... below the point's length, then at
    its length, then the point's own shape (its batch). The first the encoder takes warms it
    up: a tiny step for most encoders, for one with a minimum length (an unpadded convolution)
    the shortest it takes, to a factor of 2, and for one with a minimum batch the point itself;
    never larger than the point, so only a point that cannot run itself fails (issue 54.3)."""
    lengths = []
    seq_len = WARMUP_SHORTEST
    while seq_len < point.seq_len:
        lengths.append(seq_len)
        seq_len *= 2
    batch = min(WARMUP_BATCH, point.batch_size)
    small = [replace(point, batch_size=batch, seq_len=n) for n in [*lengths, point.seq_len]]
    return small if small[-1] == point else [*small, point]


def apply_memory_limit(device: torch.device, budget_mb: float | None) -> float | None:
    """Apply the per-point budget beyond the worker's start-up footprint (see the module
    docstring); returns that footprint in MB (CPU: its data segment; CUDA: what the caching
    allocator holds once its cache is emptied)."""
    if budget_mb is None:
        return None
    if device.type == "cuda":
        torch.cuda.empty_cache()
        baseline = reserved_bytes(device)
        total = total_bytes(device)
        fraction = min(1.0, (baseline + budget_mb * MB) / total)
        torch.cuda.set_per_process_memory_fraction(fraction, device)
        return baseline / MB
    baseline = vm_data_bytes()
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (baseline + int(budget_mb * MB), hard))
    return baseline / MB


class Models:
    """Builds the model of a point (input width = dim, the papers' default model width), keeps
    the last one for the next point of the same encoder, and warms each (encoder, mode, dtype)
    up once with a small step in that dtype (``warmup_points``) so that first-call costs stay
    out of the measured steps."""

    def __init__(self, device: torch.device, compile_model: bool):
        self.device = device
        self.compile_model = compile_model
        self.key: tuple[str, str, int] | None = None
        self.model: torch.nn.Module | None = None
        self.eager: torch.nn.Module | None = None  # the model uncompiled (same parameters)
        self.warm: set[tuple[str, str, int, str, str]] = set()

    def get(self, point: Point, dtype: str) -> torch.nn.Module:
        """The point's model, built (step ``build``) and warmed up in ``dtype`` (step
        ``warm-up``)."""
        with step_named("build"):
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
            assert self.model is not None
        if (*key, point.mode, dtype) not in self.warm and not self.compile_model:
            self._warm_up(self.model, point, dtype)
            self.warm.add((*key, point.mode, dtype))
        return self.model

    def _warm_up(self, model: torch.nn.Module, point: Point, dtype: str) -> None:
        """One step in ``dtype`` at the first of ``warmup_points`` the encoder takes; an
        allocation or device failure ends the trials, and the last shape's failure is the
        point's."""
        shapes = warmup_points(point)
        for shape in shapes:
            step = f"warm-up ({point.mode}) at [{shape.batch_size}, {shape.seq_len}, {shape.dim}]"
            try:
                with step_named(step):
                    make_step(model, *synthetic_batch(shape, self.device), point.mode, dtype)()
                return
            except StepError as failed:
                if shape is shapes[-1] or is_oom(failed.error) or spoils_device(failed.error):
                    raise

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
    step = make_step(model, *synthetic_batch(point, device), point.mode, dtype)
    return Stopwatch.timed(step, device)[0]


def run_point(request: dict[str, Any], models: Models) -> dict[str, Any]:
    """Measure one point; never raises. A failure's message is one line beginning with the step
    that failed (``StepError``); ``restart`` asks for a new worker after it (see
    ``needs_restart``), and after a cleanup that failed (a sticky CUDA error raises again in
    ``empty_cache``), whose error the message adds."""
    point = Point(**request["point"])
    try:
        reply = measure_point(point, request, models)
        failed = False
    except StepError as error:
        status = OOM if is_oom(error.error) else ERROR
        if status == ERROR:
            traceback.print_exc()
        reply = {"status": status, "message": str(error)[:500], "restart": needs_restart(error)}
        failed = True
    cleanup = release(models, forget=failed)
    if cleanup:
        message = " | ".join(filter(None, [reply.get("message", ""), cleanup[:200]]))
        reply = {**reply, "message": message, "restart": True}
    return reply


def measure_point(point: Point, request: dict[str, Any], models: Models) -> dict[str, Any]:
    """The ``ok`` reply of ``point``; raises a :class:`StepError` naming the step that failed."""
    device = models.device
    model = models.get(point, request["dtype"])
    with step_named(f"{point.mode} step"):
        extra = {}
        if models.compile_model:
            extra["compile_s"] = compile_seconds(model, point, device, request["dtype"])
        tiles_ran = bool(chunked_sizes(models.eager)) and compiled_tiles.available(device)
        with recording_tiles() as ran:  # which tiles the measured steps ran
            metrics = point_metrics(
                model, point, device, request["dtype"], request["repeats"], tiles_ran
            )
        if models.compile_model:  # what compiling bought: the same point, uncompiled
            assert models.eager is not None
            eager = point_metrics(models.eager, point, device, request["dtype"], request["repeats"])
            extra["eager_time_ms_median"] = eager["time_ms_median"]
            extra["eager_peak_mem_mb"] = eager["peak_mem_mb"]
        params = sum(p.numel() for p in model.parameters())
        extra["attention_tiles"] = tile_plan(models.eager, device, point.mode, ran)
        if metrics["attention_ns_per_pair"] is not None:  # beside the floor, measured here
            extra["attention_floor_ns_per_pair"] = floor_ns_per_pair(device.type)
    return {"status": OK, "params": params, **metrics, **extra}


def release(models: Models, forget: bool) -> str:
    """Free the point's memory (and after a failure its model); "" or, when that failed, what
    failed (after a sticky CUDA error every CUDA call raises again)."""
    try:
        if forget:
            models.forget()
        gc.collect()
        if models.device.type == "cuda":
            torch.cuda.empty_cache()
    except Exception as error:
        return f"cleanup: {failure_line(error)}"
    return ""


def needs_restart(failed: StepError) -> bool:
    """Whether the worker must be replaced after ``failed``: after a failed allocation, which
    can leave the allocator's retained memory (jemalloc) or CUDA's cache fragmented, and after
    a CUDA error, which can leave every later CUDA call failing (``spoils_device``)."""
    return is_oom(failed.error) or spoils_device(failed.error)


def worker_device(name: str) -> torch.device:
    """The worker's device; ``cuda:N`` is made the current GPU, so that nothing run without a
    device (a library's handle, a probe of ``cuda``) makes a context on GPU 0."""
    device = torch.device(name)
    if device.type == "cuda" and device.index is not None:
        torch.cuda.set_device(device)
    return device


# sanbench's warnings given since the last message: (module, class name, text) each
RELAYED: list[tuple[str, str, str]] = []


def relay_warnings() -> None:
    """Keep each warning of sanbench's own classes for the next message (:func:`send`), and
    write every warning to the log as before."""
    show = warnings.showwarning

    def shown(message: Warning | str, category: type[Warning], *args: Any, **kw: Any) -> None:
        if category.__module__.partition(".")[0] in OUR_PACKAGES:
            RELAYED.append((category.__module__, category.__qualname__, str(message)))
        show(message, category, *args, **kw)

    warnings.showwarning = shown


def send(channel: TextIO, message: dict[str, Any]) -> None:
    """Write ``message`` as one JSON line, with the warnings given since the last
    (:data:`RELAYED`)."""
    if RELAYED:
        message = {**message, "warnings": list(RELAYED)}
        RELAYED.clear()
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def main(argv: list[str]) -> int:
    config = json.loads(argv[0])
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    die_with_parent()
    relay_warnings()
    for module in config["imports"]:
        importlib.import_module(module)
    device = worker_device(config["device"])
    if config["threads"] is not None:
        torch.set_num_threads(config["threads"])
    models = Models(device, config["compile"])
    # Warm up every lazily initialised piece (profiler, autograd) before the limit: the first
    # point's encoder measured once in each mode at the first warm-up shape it takes.
    first = Point(**config["point"])
    for mode in MODES:
        for shape in warmup_points(replace(first, mode=mode)):
            request = point_request(shape, config["dtype"], repeats=1)
            if run_point(request, models)["status"] == OK:
                break
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
