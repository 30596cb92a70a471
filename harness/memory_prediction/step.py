"""Peak tensor memory and FLOPs of a profiling step, predicted on ``meta`` tensors.

The step of ``harness.measurement.profiled_step.make_step`` (forward, or forward + backward) runs
on a model and inputs built on the ``meta`` device, which carry shapes and dtypes but no data,
under ``LiveStorageTracker``, a dispatch mode that adds a storage's bytes when an operator returns
it and subtracts them when the storage is freed (a weak-reference callback), keeping the maximum,
and that counts each operator's FLOPs with ``FlopCounterMode``. Nothing is allocated at the
predicted shapes, so a step that needs 65 GB at [64, 384, 300] is predicted on a laptop, and an
operator repeated on the same shapes (an RNN's 384 steps) is remade from its first call's result
instead of rerunning its Python meta kernel (a Bi-LSTM training step at L=384: 3 s instead
of 11.5 s).

What this counts is tensor memory: every storage an operator returns (activations saved for
backward, gradients, parameters, inputs), and what the CPU's kernels hold inside a call:
``harness.memory_prediction.cpu_kernels`` runs what the CPU runs where it differs from the meta
kernels (eval-mode dropout, fused attention, oneDNN's LSTM layer) and adds the memory a kernel holds
during the call (oneDNN's reorders and workspaces, from ``harness.memory_prediction.kernel_model``'s
fit over small lengths; nothing runs at the predicted shapes), TensorIterator's dtype-promotion
copies and the softmax's contiguous copies. Allocator caches and a CUDA context are not
counted. The step is the CPU's: docs/benchmarks.md lists the measured accuracy.
"""

from __future__ import annotations

import importlib
import multiprocessing
import multiprocessing.pool
import os
import signal
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from multiprocessing import resource_tracker
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from encoders import build_encoder
from encoders.layers import compiled_tiles
from encoders.layers.tanh_attention import chunked_sizes
from harness.errors import failure_line
from harness.launch.processes import die_with_parent
from harness.measurement.elapsed import Elapsed
from harness.measurement.profiled_step import Point, encoder_options, make_step, synthetic_batch
from harness.memory_prediction.cpu_kernels import (
    CONTIGUOUS_CPU_OPS,
    CPU_KERNELS,
    CPU_WORKSPACES,
    PROMOTING_CPU_OPS,
    CpuLinear,
    CpuRnn,
    contiguous_temporaries,
    hold_inside_memory,
    promotion_temporaries,
)
from harness.memory_prediction.kernel_model import call_key, kernel_record, tensors_of
from harness.memory_prediction.value_dependent import (
    ValueDependentError,
    run_on_meta,
    value_dependent,
)
from harness.quiet import OUR_PACKAGES


class LiveStorageTracker(TorchDispatchMode):
    """Bytes of live tensor storages and their peak, and the FLOPs, while the mode is active.

    Storages are keyed by identity; ``track`` registers pre-existing tensors (parameters,
    inputs), ``__torch_dispatch__`` every operator's outputs. In-place and view outputs share a
    tracked storage and add nothing. Composite operators that reach the mode whole (under
    ``inference_mode``) run decomposed, as under ``FlopCounterMode``, so that their
    intermediates are seen. FLOPs are counted by ``FlopCounterMode``.

    Meta runs repeat operators on the same shapes (an RNN's steps, layer after layer), so an
    operator is known after its first call by its arguments' shapes, strides, dtypes and other
    values: its FLOPs are counted once, and when its outputs are new storages (or its own
    in-place argument, left the same shape) later calls remake them with
    ``torch.empty_strided`` instead of running its Python meta kernel again. Views and
    shape-changing in-place operators (``transpose_``) always run.
    """

    def __init__(self) -> None:
        super().__init__()
        # id of a live tracked storage -> a weak reference whose callback forgets it when freed
        self._storages: dict[int, weakref.ref] = {}
        self._known: dict[tuple, Known] = {}
        self._atomic: set[Any] = set()
        self.live = 0
        self.peak = 0
        self.flops = 0
        self.unmodelled: set[str] = set()
        # shapes of the model's parameters (``accumulates``) and, after a gradient sum that
        # autograd makes in place, its two operands' storages and the peak before the sum
        self._parameter_shapes: set[tuple[int, ...]] = set()
        self._in_place: tuple[set[int], int] | None = None

    def _freed(self, key: int, nbytes: int) -> None:
        del self._storages[key]
        self.live -= nbytes
        if self._in_place is not None and key in self._in_place[0]:
            # an operand of the sum is gone, nothing allocated since: the sum took its place,
            # as autograd's in-place ``add_`` does outside a mode
            self.peak = max(self._in_place[1], self.live)
            self._in_place = None

    def accumulates(self, parameters: Iterable[torch.Tensor]) -> None:
        """Count a backward's sum of two gradients of one of ``parameters``' shapes as autograd
        makes it outside a dispatch mode: in place. Under any mode autograd adds out of place
        (``InputBuffer::accumulate``: a mode makes every tensor "subclass-like"), holding one
        more gradient until an operand is freed. On the CPU autograd sums in place into either
        operand that is a fresh buffer (:func:`_fresh_buffer`; ``InputBuffer::accumulate`` tries
        the first, then the second): a parameter used twice (Bi-BloSAN's), or a tied weight whose
        one gradient is a fresh buffer and the other a view (``linear`` and ``probs @ W``); a sum
        of two views (an RNN step's weight gradients) is made out of place."""
        self._parameter_shapes = {tuple(p.shape) for p in parameters}

    def track(self, tensors: Iterable[Any]) -> None:
        for tensor in tensors:
            if not isinstance(tensor, torch.Tensor):
                continue
            storage = tensor.untyped_storage()
            key = id(storage)  # unique while it lives; the callback runs before the id is reused
            if key in self._storages:
                continue
            nbytes = storage.nbytes()
            self._storages[key] = weakref.ref(storage, lambda _, k=key, n=nbytes: self._freed(k, n))
            self.live += nbytes
            self._in_place = None  # something was allocated before the old buffer was freed
        self.peak = max(self.peak, self.live)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        cpu_kernel = CPU_KERNELS.get(func)
        if cpu_kernel is not None:
            out = cpu_kernel(self, *args, **kwargs)
            if out is not NotImplemented:
                return out
        if func not in self._atomic:  # a composite (``aten.lstm`` under inference_mode)
            with self:
                out = func.decompose(*args, **kwargs)
            if out is not NotImplemented:
                return out
            self._atomic.add(func)
        live_before = self.live
        inputs: list[torch.Tensor] = []
        key = call_key(func, args, kwargs, inputs)
        known = self._known.get(key) if key is not None else None
        if known is not None and known.recipe is not None:
            single, parts = known.recipe
            outputs = [inputs[part] if isinstance(part, int) else _empty(part) for part in parts]
            out = outputs[0] if single else tuple(outputs)
        elif known is not None:
            out = func(*args, **kwargs)
        else:
            before = [_layout(tensor) for tensor in inputs]
            with FlopCounterMode(display=False) as counter:
                out = run_on_meta(func, args, kwargs)
            known = Known(counter.get_total_flops(), self._recipe(out, inputs, before))
            if key is not None:
                self._known[key] = known
        self.flops += known.flops
        peak_before = self.peak
        self.track(tensors_of(out))
        if self._gradient_sum(func, args):
            self._in_place = ({id(t.untyped_storage()) for t in args[:2]}, peak_before)
        if func in CPU_WORKSPACES:
            hold_inside_memory(self, live_before, kernel_record(func, args, kwargs))
        elif func in CONTIGUOUS_CPU_OPS:
            self.peak = max(self.peak, self.live + contiguous_temporaries(func, args))
        elif func in PROMOTING_CPU_OPS and isinstance(out, torch.Tensor):
            temporaries = promotion_temporaries(args, out.dtype)
            if temporaries:
                self.peak = max(self.peak, self.live + temporaries)
        return out

    def _gradient_sum(self, func: Any, args: tuple) -> bool:
        """Whether ``func(*args)`` is backward's sum of two gradients of a parameter's shape."""
        if func is not torch.ops.aten.add.Tensor or torch.is_grad_enabled():
            return False
        first, second = args[:2] if len(args) >= 2 else (None, None)
        return (
            isinstance(first, torch.Tensor)
            and isinstance(second, torch.Tensor)
            and first.shape == second.shape
            and tuple(first.shape) in self._parameter_shapes
            and (_fresh_buffer(first) or _fresh_buffer(second))
        )

    def _recipe(self, out: Any, inputs: list[torch.Tensor], before: list[Any]) -> Recipe | None:
        """How to remake ``out``: a tensor or a tuple of tensors each of which is either an input
        whose shape and strides the operator left as they were (an in-place result) or a tensor
        in a new storage of its own, such as ``torch.empty_strided`` makes; else None."""
        single = isinstance(out, torch.Tensor)
        tensors = (out,) if single else out
        if not isinstance(tensors, tuple) or not all(isinstance(t, torch.Tensor) for t in tensors):
            return None
        parts: list[int | TensorSpec] = []
        for tensor in tensors:
            same = [i for i, leaf in enumerate(inputs) if leaf is tensor]
            if same:
                if _layout(tensor) != before[same[0]]:
                    return None
                parts.append(same[0])
                continue
            storage = tensor.untyped_storage()
            spec = (tuple(tensor.shape), tensor.stride(), tensor.dtype)
            if (
                id(storage) in self._storages
                or tensor.storage_offset() != 0
                or storage.nbytes() != _empty(spec).untyped_storage().nbytes()
            ):
                return None
            parts.append(spec)
        if len({id(t.untyped_storage()) for t in tensors}) != len(tensors):
            return None
        return single, parts


TensorSpec = tuple[tuple[int, ...], tuple[int, ...], torch.dtype]
# Whether the result is one tensor; per tensor, the index of the input it is or the spec of a
# new one.
Recipe = tuple[bool, list[int | TensorSpec]]


def _fresh_buffer(tensor: torch.Tensor) -> bool:
    """A contiguous tensor that is no view (``_base``: torch has no public test of it): what
    autograd adds a gradient into in place on the CPU. A sum with a view (an RNN step's weight
    gradient) was measured out of place there: the view's base holds its storage too."""
    return tensor._base is None and tensor.is_contiguous()


@dataclass(frozen=True)
class Known:
    """An operator call seen before: its FLOPs, and how to remake its outputs (None: run it)."""

    flops: int
    recipe: Recipe | None


def _empty(spec: TensorSpec) -> torch.Tensor:
    return torch.empty_strided(spec[0], spec[1], dtype=spec[2], device="meta")


def _layout(tensor: torch.Tensor) -> tuple:
    """What an in-place operator must leave as it was for its result to be remade."""
    return (tuple(tensor.shape), tensor.stride(), tensor.storage_offset(), tensor.dtype)


@dataclass(frozen=True)
class Prediction:
    """A step's predicted peak tensor bytes, FLOPs, parameter count and how long it took; and
    the kernels whose inside memory it leaves out, with why (then ``peak_bytes`` is a lower
    bound)."""

    peak_bytes: int
    flops: int
    params: int
    seconds: float
    unmodelled: tuple[str, ...] = ()


def predict_memory(
    build: Callable[[], torch.nn.Module],
    point: Point,
    tracker: LiveStorageTracker | None = None,
) -> Prediction:
    """Run ``point``'s fp32 step on meta tensors under ``tracker`` (a new
    :class:`LiveStorageTracker` by default); ``build()`` makes the model (on any device: it is
    called under ``torch.device("meta")``)."""
    elapsed = Elapsed()
    meta = torch.device("meta")
    with meta:
        torch.manual_seed(0)
        model = build()
    if chunked_sizes(model):  # the first check compiles real tiles: before any mode is on
        compiled_tiles.available("meta")
    x, mask = synthetic_batch(point, meta)
    step = make_step(model, x, mask, point.mode, "fp32")
    model.zero_grad(set_to_none=True)
    tracker = LiveStorageTracker() if tracker is None else tracker
    tracker.track([*model.parameters(), *model.buffers(), x, mask])
    tracker.accumulates(model.parameters())
    with CpuLinear(), CpuRnn(), tracker:
        step()
    return Prediction(
        peak_bytes=tracker.peak,
        flops=tracker.flops,
        params=sum(p.numel() for p in model.parameters()),
        seconds=elapsed.seconds,
        unmodelled=tuple(sorted(tracker.unmodelled)),
    )


def predict_point(point: Point) -> Prediction | str:
    """The prediction of a registered encoder's point, or why it failed (e.g. an operator with
    no meta kernel), on one line (``errors.failure_line``; an operator whose output's size
    depends on values in sanbench's words, not torch's)."""
    try:
        options = encoder_options(point)
        return predict_memory(
            lambda: build_encoder(point.encoder, input_dim=point.dim, **options), point
        )
    except ValueDependentError as error:
        return f"no prediction: {error}"
    except Exception as error:
        return f"no prediction: {failure_line(error)}"[:500]


def _start_predicting(modules: tuple[str, ...], threads: int | None) -> None:
    """A prediction process: it dies with the sweep process (``die_with_parent``: a sweep killed
    with SIGKILL left it predicting), the user's encoder modules imported, and the measuring
    worker's thread count, with which the kernels are calibrated (oneDNN sizes scratchpads per
    thread)."""
    die_with_parent()
    leave_warnings_to_the_sweep()
    for module in modules:
        importlib.import_module(module)
    if threads is not None:
        torch.set_num_threads(threads)


def leave_warnings_to_the_sweep() -> None:
    """Ignore, in a prediction process, the warnings sanbench's own code gives while it builds
    the encoders (``mtsa:impl=...``'s ``RenamedOptionWarning``): the sweep process has said each
    once, and here Python printed it again in its own format, with a source line."""
    warnings.filterwarnings("ignore", module=rf"({'|'.join(OUR_PACKAGES)})(\.|$)")


def predict_encoder(points: list[Point]) -> list[Prediction | str]:
    """:func:`predict_point` of each of one encoder's ``points``, in one process: the CPU
    kernels its RNN layers call are calibrated once (``harness.memory_prediction.cpu_kernels``), not
    again in each process that predicts one of its points. An encoder whose memory depends on
    values at one point does at every point: the rest are not run."""
    results: list[Prediction | str] = []
    for point in points:
        said = [r for r in results if isinstance(r, str) and value_dependent(r)]
        results.append(said[0] if said else predict_point(point))
    return results


def predict_points(
    points: list[Point], imports: tuple[str, ...], processes: int, threads: int | None = None
) -> Iterator[tuple[Point, Prediction | str]]:
    """Predict ``points`` in ``processes`` spawned processes (meta runs are single-threaded
    Python) whose kernels run on ``threads`` threads (default: torch's), one encoder (and
    variant) per task, the encoder with the longest length first so that the slow ones start
    early; yields each encoder's points as it finishes. (Points dealt one by one made both
    processes calibrate every RNN kernel: the quick preset's predictions took 10 s, now 7 s.)
    The processes end when the caller stops iterating (close the generator), whether it
    finished, failed or was interrupted. No point, no process (a resumed sweep with every point
    done started one that imported torch for nothing)."""
    groups: dict[tuple[str, str], list[Point]] = {}
    for point in sorted(points, key=lambda p: (p.seq_len, p.mode == "train"), reverse=True):
        groups.setdefault((point.encoder, point.options), []).append(point)
    tasks = list(groups.values())
    if not tasks:
        return
    workers = max(1, min(processes, len(tasks)))
    with _prediction_pool(workers, imports, threads) as pool:
        results = pool.imap(predict_encoder, tasks)
        for group, predictions in zip(tasks, results, strict=True):
            yield from zip(group, predictions, strict=True)


@contextmanager
def _prediction_pool(
    processes: int, imports: tuple[str, ...], threads: int | None
) -> Iterator[multiprocessing.pool.Pool]:
    """``processes`` spawned prediction processes, terminated on leaving (``Pool.terminate``).
    They start with SIGINT blocked, and so never see it: a terminal's Ctrl-C reaches the whole
    process group, and a Python process interrupted while it imports torch or waits for a task
    prints a ``KeyboardInterrupt`` traceback. This process handles Ctrl-C and ends them."""
    context = multiprocessing.get_context("spawn")
    with ExitStack() as stack:
        with _sleeping_openmp_threads(), _sigint_held():
            pool = stack.enter_context(
                context.Pool(processes, _start_predicting, (imports, threads))
            )
        yield pool


@contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread, so that the processes started inside inherit it blocked;
    a Ctrl-C meanwhile is raised as ``KeyboardInterrupt`` on leaving. Multiprocessing's resource
    tracker is started first: starting it unblocks SIGINT."""
    resource_tracker.ensure_running()
    received: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt


@contextmanager
def _sleeping_openmp_threads() -> Iterator[None]:
    """Processes started inside get ``OMP_WAIT_POLICY=PASSIVE`` (unless it is set): their
    OpenMP threads sleep between the calibration calls' kernels instead of spinning on the CPU
    the other prediction process needs (``--predict-only --predict-lengths 384`` on 2 cores:
    11.7 s of predicting instead of 14.9 s). The measuring worker, started before, keeps the
    default."""
    name = "OMP_WAIT_POLICY"
    if name in os.environ:
        yield
        return
    os.environ[name] = "PASSIVE"
    try:
        yield
    finally:
        del os.environ[name]
