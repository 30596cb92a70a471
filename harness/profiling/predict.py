"""Peak tensor memory and FLOPs of a profiling step, predicted on ``meta`` tensors.

The step of ``harness.profiling.measure.make_step`` (forward, or forward + backward) runs on a
model and inputs built on the ``meta`` device, which carry shapes and dtypes but no data, under
``LiveStorageTracker``, a dispatch mode that adds a storage's bytes when an operator returns it
and subtracts them when the storage is freed (a weak-reference callback), keeping the maximum,
and that counts each operator's FLOPs with ``FlopCounterMode``. Nothing is allocated, so a step
that needs 65 GB at [64, 384, 300] is predicted on a laptop, and an operator repeated on the
same shapes (an RNN's 384 steps) is remade from its first call's result instead of rerunning
its Python meta kernel (a Bi-LSTM training step at L=384: 3 s instead of 11.5 s).

What this counts is tensor memory: every storage an operator returns (activations saved for
backward, gradients, parameters, inputs). It does not see memory a kernel allocates inside
itself and frees before returning (oneDNN convolution reorders, RNN workspaces, the temporary
copies TensorIterator makes to promote a bool operand to float), nor allocator caches and a
CUDA context. Where the CPU runs an operator another way than its meta decomposition does
(eval-mode dropout, fused attention), ``CPU_KERNELS`` does what the CPU does. The step is the
CPU's: docs/benchmarks.md lists the measured differences.
"""

from __future__ import annotations

import importlib
import multiprocessing
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from encoders import build_encoder
from harness.profiling.measure import Point, encoder_options, make_step, synthetic_batch


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

    def _freed(self, key: int, nbytes: int) -> None:
        del self._storages[key]
        self.live -= nbytes

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
        inputs: list[torch.Tensor] = []
        key = _key(func, args, kwargs, inputs)
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
                out = func(*args, **kwargs)
            known = Known(counter.get_total_flops(), self._recipe(out, inputs, before))
            if key is not None:
                self._known[key] = known
        self.flops += known.flops
        self.track(_tensors(out))
        return out

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


def _dropout_as_on_cpu(mode: LiveStorageTracker, x: Any, p: float, train: bool | None) -> Any:
    """Dropout off (eval, p = 0): the CPU kernel returns its input; the Python decomposition a
    composite gets under ``inference_mode`` would copy it."""
    return x if not train or p == 0 else NotImplemented


def _attention_as_on_cpu(
    mode: LiveStorageTracker,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attn_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    dropout_mask: torch.Tensor | None = None,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Any:
    """``scaled_dot_product_attention`` picks the math path on meta tensors and the fused CPU
    kernel (``_scaled_dot_product_flash_attention_for_cpu``) on the CPU when there is no dropout
    and the inputs are dense [B, h, L, d]. Run the fused kernel's meta function instead and give
    its output the CPU kernel's layout ([B, L, h, d] in memory), so that the heads' concatenation
    is a view, as it is on the CPU."""
    dense = all(t.dim() == 4 and t.stride(-1) == 1 for t in (query, key, value))
    if dropout_p or dropout_mask is not None or enable_gqa or not dense:
        return NotImplemented
    with mode:
        out, logsumexp = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
            query, key, value, 0.0, is_causal, attn_mask=attn_mask, scale=scale
        )
    _, heads, length, width = out.shape
    strides = (length * heads * width, width, heads * width, 1)
    return out.as_strided(out.shape, strides), logsumexp


# Operators whose CPU kernel a meta run would not reproduce, with what the CPU does (or
# NotImplemented where it does what the meta run does).
CPU_KERNELS: dict[Any, Callable[..., Any]] = {
    torch.ops.aten.dropout.default: _dropout_as_on_cpu,
    torch.ops.aten.feature_dropout.default: _dropout_as_on_cpu,
    torch.ops.aten.alpha_dropout.default: _dropout_as_on_cpu,
    torch.ops.aten.feature_alpha_dropout.default: _dropout_as_on_cpu,
    torch.ops.aten._scaled_dot_product_attention_math.default: _attention_as_on_cpu,
}

TensorSpec = tuple[tuple[int, ...], tuple[int, ...], torch.dtype]
# Whether the result is one tensor; per tensor, the index of the input it is or the spec of a
# new one.
Recipe = tuple[bool, list[int | TensorSpec]]


@dataclass(frozen=True)
class Known:
    """An operator call seen before: its FLOPs, and how to remake its outputs (None: run it)."""

    flops: int
    recipe: Recipe | None


def _empty(spec: TensorSpec) -> torch.Tensor:
    return torch.empty_strided(spec[0], spec[1], dtype=spec[2], device="meta")


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    """The tensors in nested tuples, lists and dicts (operator arguments and results)."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


def _signature(value: Any, tensors: list[torch.Tensor]) -> Any:
    """``value`` as a hashable description (tensors by shape, strides and dtype; anything else
    by type and value), appending the tensors met to ``tensors``."""
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return (value.shape, value.stride(), value.dtype)
    if isinstance(value, list | tuple):
        return (type(value), *[_signature(item, tensors) for item in value])
    if isinstance(value, dict):
        if not value:
            return ()
        items = sorted(value.items())
        return (dict, *[(name, _signature(item, tensors)) for name, item in items])
    return (type(value), value)


def _key(func: Any, args: tuple, kwargs: dict, tensors: list[torch.Tensor]) -> tuple | None:
    """What a meta kernel's new outputs depend on: the operator, every tensor's shape, strides
    and dtype (not its storage offset: an RNN's step t reads slices at offsets that vary with t),
    and every other argument with its type (``True`` is not ``1``); None when one cannot be
    hashed. The tensors of ``args`` and ``kwargs`` are appended to ``tensors``."""
    key = (func, _signature(args, tensors), _signature(kwargs, tensors))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _layout(tensor: torch.Tensor) -> tuple:
    """What an in-place operator must leave as it was for its result to be remade."""
    return (tuple(tensor.shape), tensor.stride(), tensor.storage_offset(), tensor.dtype)


@dataclass(frozen=True)
class Prediction:
    """A step's predicted peak tensor bytes, FLOPs, parameter count and how long it took."""

    peak_bytes: int
    flops: int
    params: int
    seconds: float


def predict(build: Callable[[], torch.nn.Module], point: Point) -> Prediction:
    """Run ``point``'s fp32 step on meta tensors; ``build()`` makes the model (on any device:
    it is called under ``torch.device("meta")``)."""
    start = time.perf_counter()
    meta = torch.device("meta")
    with meta:
        torch.manual_seed(0)
        model = build()
    x, mask = synthetic_batch(point, meta)
    step = make_step(model, x, mask, point.mode, "fp32")
    model.zero_grad(set_to_none=True)
    tracker = LiveStorageTracker()
    tracker.track([*model.parameters(), *model.buffers(), x, mask])
    with tracker:
        step()
    return Prediction(
        peak_bytes=tracker.peak,
        flops=tracker.flops,
        params=sum(p.numel() for p in model.parameters()),
        seconds=time.perf_counter() - start,
    )


def predict_point(point: Point) -> Prediction | str:
    """The prediction of a registered encoder's point, or why it failed (e.g. an operator with
    no meta kernel)."""
    try:
        options = encoder_options(point)
        return predict(lambda: build_encoder(point.encoder, input_dim=point.dim, **options), point)
    except Exception as error:
        return f"no prediction: {type(error).__name__}: {error}"[:500]


def _import_all(modules: tuple[str, ...]) -> None:
    for module in modules:
        importlib.import_module(module)


def predict_points(
    points: list[Point], imports: tuple[str, ...], processes: int
) -> Iterator[tuple[Point, Prediction | str]]:
    """Predict ``points`` in ``processes`` spawned processes (meta runs are single-threaded
    Python), longest lengths first so that the slow ones start early; yields as they finish."""
    if processes <= 1 or len(points) < 2:
        for point in points:
            yield point, predict_point(point)
        return
    order = sorted(points, key=lambda p: (p.seq_len, p.mode == "train"), reverse=True)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(processes, context, _import_all, (imports,)) as pool:
        yield from zip(order, pool.map(predict_point, order), strict=True)
