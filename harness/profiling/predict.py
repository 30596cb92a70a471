"""Peak tensor memory and FLOPs of a profiling step, predicted on ``meta`` tensors.

The step of ``harness.profiling.measure.make_step`` (forward, or forward + backward) runs on a
model and inputs built on the ``meta`` device, which carry shapes and dtypes but no data, under
two dispatch modes: ``LiveStorageTracker`` adds a storage's bytes when an operator returns it
and subtracts them when the storage is freed (a weak-reference callback), keeping the maximum;
``FlopCounterMode`` counts FLOPs. Nothing is allocated, so a step that needs 44 GB at
[64, 384, 300] is predicted on a laptop.

What this counts is tensor memory: every storage an operator returns (activations saved for
backward, gradients, parameters, inputs). It does not see memory a kernel allocates inside
itself and frees before returning (oneDNN convolution reorders, RNN workspaces, the temporary
copies TensorIterator makes to promote a bool operand to float), nor allocator caches and a
CUDA context; docs/benchmarks.md lists the measured differences.
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
from torch.utils._pytree import tree_leaves
from torch.utils.flop_counter import FlopCounterMode
from torch.utils.weak import WeakIdKeyDictionary

from encoders import build_encoder
from harness.profiling.measure import Point, encoder_options, make_step, synthetic_batch


class LiveStorageTracker(TorchDispatchMode):
    """Bytes of live tensor storages and their peak while the mode is active.

    Storages are keyed by identity; ``track`` registers pre-existing tensors (parameters,
    inputs), ``__torch_dispatch__`` every operator's outputs. In-place and view outputs share a
    tracked storage and add nothing.
    """

    def __init__(self) -> None:
        super().__init__()
        self._storages: WeakIdKeyDictionary = WeakIdKeyDictionary()
        self.live = 0
        self.peak = 0

    def _freed(self, nbytes: int) -> None:
        self.live -= nbytes

    def track(self, tensors: Iterable[Any]) -> None:
        for tensor in tensors:
            if not isinstance(tensor, torch.Tensor):
                continue
            storage = tensor.untyped_storage()
            if storage in self._storages:
                continue
            nbytes = storage.nbytes()
            self._storages[storage] = weakref.ref(storage, lambda _, n=nbytes: self._freed(n))
            self.live += nbytes
        self.peak = max(self.peak, self.live)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.track(tree_leaves(out))
        return out


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
    counter = FlopCounterMode(display=False)
    with tracker, counter:
        step()
    return Prediction(
        peak_bytes=tracker.peak,
        flops=int(counter.get_total_flops()),
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
