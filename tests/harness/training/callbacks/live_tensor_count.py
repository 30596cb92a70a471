"""An independent count of a fit's training memory, step by step, to check the one it reports.

:class:`LiveTensorCount` is a user callback on Lightning's public batch hooks. At each training
step's start it takes the run's own tensors (parameters, buffers, gradients, optimizer state,
the batch), then, until the step's end, a ``TorchDispatchMode`` adds the storage of every
tensor an operator returns and a weak reference on each storage takes it away when it is
freed. A step's peak is the most these live bytes reached, read after every operator (when its
outputs exist and its inputs are not yet released) and at the step's start. Nothing here reads
an allocator or a profiler, and nothing of ``harness.measurement.tensor_memory`` is used.

What it cannot see: buffers a kernel allocates and frees inside one operator (workspaces,
per-thread partial results, copies of its operands) never leave the operator; an allocator
counts them (``operator_workspace`` measures them, apart).
"""

from __future__ import annotations

import weakref
from typing import Any

import lightning.pytorch as pl
import torch

# TorchDispatchMode: where torch documents it (there is no other import path)
from torch.utils._python_dispatch import TorchDispatchMode


def _tensors(value: Any) -> list[torch.Tensor]:
    """The tensors in an operator's arguments or outputs (nested in tuples, lists, dicts)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [t for item in value for t in _tensors(item)]
    return []


class _LiveStorages:
    """Bytes of the storages being tracked that are still alive, and the most they reached."""

    def __init__(self) -> None:
        self.live: dict[int, int] = {}  # key: id of the storage's weak reference
        self.refs: dict[int, weakref.ref] = {}
        self.pointers: set[int] = set()
        self.bytes = 0
        self.peak = 0

    def add(self, tensor: torch.Tensor) -> None:
        if tensor.device.type == "meta":
            return
        storage = tensor.untyped_storage()
        pointer, size = storage.data_ptr(), storage.nbytes()
        if size == 0 or pointer in self.pointers:
            return
        self.pointers.add(pointer)

        def freed(ref: weakref.ref, pointer: int = pointer, size: int = size) -> None:
            if id(ref) in self.live:
                del self.live[id(ref)], self.refs[id(ref)]
                self.pointers.discard(pointer)
                self.bytes -= size

        ref = weakref.ref(storage, freed)
        self.live[id(ref)], self.refs[id(ref)] = size, ref
        self.bytes += size
        self.sample()

    def sample(self) -> None:
        self.peak = max(self.peak, self.bytes)


class _CountOutputs(TorchDispatchMode):
    def __init__(self, storages: _LiveStorages) -> None:
        super().__init__()
        self.storages = storages

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in _tensors(out):
            self.storages.add(tensor)
        self.storages.sample()
        return out


def _own_tensors(trainer: pl.Trainer, module: torch.nn.Module, batch: Any) -> list[torch.Tensor]:
    tensors = [*module.parameters(), *module.buffers()]
    tensors += [p.grad for p in module.parameters() if p.grad is not None]
    for optimizer in trainer.optimizers:
        for state in optimizer.state.values():
            tensors += [v for v in state.values() if isinstance(v, torch.Tensor)]
    tensors += [v for v in batch.values() if isinstance(v, torch.Tensor)]
    return tensors


class LiveTensorCount(pl.Callback):
    """``step_peaks``: every training step's peak live tensor bytes."""

    def __init__(self) -> None:
        self.step_peaks: list[int] = []
        self._storages: _LiveStorages | None = None
        self._mode: _CountOutputs | None = None

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self._storages = _LiveStorages()
        for tensor in _own_tensors(trainer, pl_module, batch):
            self._storages.add(tensor)
        self._mode = _CountOutputs(self._storages)
        self._mode.__enter__()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        assert self._mode is not None and self._storages is not None
        self._mode.__exit__(None, None, None)
        self.step_peaks.append(self._storages.peak)
        self._storages.live.clear()  # later frees no longer count
        self._mode = self._storages = None
