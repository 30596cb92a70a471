"""Peak tensor bytes of a run's training steps, ``fit``'s peak training memory (Bi-BloSAN
Table 2, MTSA Table 1): the run's own tensors at a step's start (parameters, buffers, the
gradients it holds, optimizer state, the batch) plus the most the allocator held beyond them
during the step (activations, kernel workspaces, new gradients and optimizer state), by the
step-peak rule ``profile`` uses too (:class:`harness.measurement.tensor_memory.StepPeak`), the
largest over the steps that can be the largest: every step, unless the model declares that a
step's memory follows from its batch's shape (:func:`memory_by_shape`). Whatever else lives in
the process (an earlier run of a suite, caches) is not counted, so a run reads the same alone
or after others."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl
import torch

from harness.measurement.tensor_memory import MB, StepPeak, live_bytes


def _batch_shape(batch: Any) -> tuple[int, ...]:
    """The sizes of a batch's token tensors, all dimensions in a row (pairs: both sides)."""
    tokens = [t for t in (batch.values() if isinstance(batch, dict) else []) if t.dim() == 2]
    return tuple(size for t in tokens if t.dtype == torch.long for size in t.shape)


def _gradients(module: torch.nn.Module) -> list[torch.Tensor]:
    return [p.grad for p in module.parameters() if p.grad is not None]


def _state(module: torch.nn.Module, optimizers: list) -> list[torch.Tensor]:
    """Parameters, buffers and optimizer state: what a step starts with beside its gradients
    and its batch."""
    tensors = [*module.parameters(), *module.buffers()]
    for optimizer in optimizers:
        for state in optimizer.state.values():
            tensors += [value for value in state.values() if isinstance(value, torch.Tensor)]
    return tensors


def memory_by_shape(module: torch.nn.Module) -> bool:
    """Whether ``module`` declares that a training step's memory follows from its batch's shape
    (with the state it starts with) alone: its ``memory_by_shape()`` says so (sanbench's task
    model: its encoder's declaration). Any other model is measured on every step."""
    declared = getattr(module, "memory_by_shape", None)
    return callable(declared) and declared() is True


def _batch_tensors(batch: Any) -> list[torch.Tensor]:
    values = batch.values() if isinstance(batch, dict) else []
    return [t for t in values if isinstance(t, torch.Tensor)]


class StepMemory:
    """Peak tensor bytes of training steps (the module docstring's definition; the rule is
    :class:`harness.measurement.tensor_memory.StepPeak`), taken over the steps that can be the
    largest.

    A step runs as any other: it starts holding the previous step's gradients, which Lightning
    frees after the forward (before the backward, :meth:`gradients_freed`). A checkpoint keeps
    their bytes, not the gradients: the first step after a resume starts holding a stand-in of
    that size, freed where Lightning frees gradients, so it peaks as the uninterrupted run's
    step did. Its peak grows with
    its batch, with the gradients it starts holding and with the rest of what it starts with
    (parameters, buffers, optimizer state). So a step is left out when a measured step had a
    batch at least as large in every dimension, held at least as many bytes of gradients and
    started with at least as many bytes of the rest: it cannot be the largest. The first step
    starts with no gradients and no optimizer state, the second with both, so it is measured
    too; a handful per run, the same steps on every device.

    That holds only for a model whose memory follows from shapes: ``every_step`` (a model that
    does not declare it, :func:`memory_by_shape`: an encoder taking ``x[mask]``, or choosing a
    form by its values as MTSA does) measures every step.
    """

    def __init__(self, device: torch.device, every_step: bool = True) -> None:
        self.device = device
        self.every_step = every_step
        self.kind = f"{device.type}_tensor_peak"
        self.peak_bytes = 0
        self.steps = 0  # steps measured
        # (batch shape, gradient bytes, other state bytes) of the steps measured
        self._measured: list[tuple[tuple[int, ...], int, int]] = []
        self._peak: StepPeak | None = None
        self._batch: list[torch.Tensor] = []
        self._gradient_bytes = 0  # held at the last step's end
        self._to_take_back = 0  # a resume's: gradient bytes its first step starts holding
        self._stand_in: torch.Tensor | None = None

    def _dominated(self, shape: tuple[int, ...], gradients: int, state: int) -> bool:
        return any(
            len(seen) == len(shape)
            and all(a <= b for a, b in zip(shape, seen, strict=True))
            and gradients <= seen_gradients
            and state <= seen_state
            for seen, seen_gradients, seen_state in self._measured
        )

    def _held_gradients(self, module: torch.nn.Module) -> list[torch.Tensor]:
        stand_in = [] if self._stand_in is None else [self._stand_in]
        return _gradients(module) + stand_in

    def wanted(self, trainer: pl.Trainer, module: torch.nn.Module, batch: Any) -> bool:
        """Whether this step is to be measured (remembered if so): every step with
        ``every_step``, else one that no measured step had a batch as large, as many gradient
        bytes and as much other state. The first step after a resume takes its stand-in for
        the gradients the uninterrupted run held here."""
        if self._to_take_back and not _gradients(module):
            self._stand_in = torch.empty(self._to_take_back, dtype=torch.uint8, device=self.device)
        self._to_take_back = 0
        if self.every_step:
            return True
        shape = _batch_shape(batch)
        gradients = live_bytes(self._held_gradients(module))
        state = live_bytes(_state(module, trainer.optimizers))
        if self._dominated(shape, gradients, state):
            return False
        self._measured.append((shape, gradients, state))
        return True

    def _own(self, trainer: pl.Trainer, module: torch.nn.Module) -> int:
        """Bytes of the run's own tensors: state, gradients, the batch."""
        tensors = _state(module, trainer.optimizers) + self._held_gradients(module) + self._batch
        return live_bytes(tensors)

    def begin(self, trainer: pl.Trainer, module: torch.nn.Module, batch: Any) -> None:
        """Start measuring this step."""
        self._batch = _batch_tensors(batch)
        self._peak = StepPeak(self.device, self._own(trainer, module))

    def gradients_freed(self, trainer: pl.Trainer, module: torch.nn.Module) -> None:
        """The backward of any step is about to start: the previous gradients are gone
        (Lightning's ``zero_grad``; a resume's stand-in with them), or kept when gradients are
        being accumulated."""
        self._stand_in = None
        if self._peak is not None:
            self._peak.own_now(self._own(trainer, module))

    def end(self, module: torch.nn.Module) -> None:
        """Any step ended: note the gradient bytes it leaves to the next; take its peak if it
        was measured."""
        self._gradient_bytes = live_bytes(_gradients(module))
        if self._peak is not None:
            self.peak_bytes = max(self.peak_bytes, self._peak.stop())
            self.steps += 1
        self._peak, self._batch = None, []

    def abort(self) -> None:
        """The step failed (an error, a signal): stop measuring."""
        if self._peak is not None:
            self._peak.abort()
        self._peak, self._batch, self._stand_in = None, [], None

    def state_dict(self) -> dict[str, Any]:
        """The peak so far, the steps measured and the gradient bytes held, for a checkpoint: a
        resumed run measures the steps the uninterrupted one would and reports the whole run's
        peak."""
        return {
            "kind": self.kind,
            "peak_bytes": self.peak_bytes,
            "steps": self.steps,
            "measured": [(list(shape), g, s) for shape, g, s in self._measured],
            "gradient_bytes": self._gradient_bytes,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.kind = str(state["kind"])
        self.peak_bytes = int(state["peak_bytes"])
        self.steps = int(state["steps"])
        self._measured = [(tuple(shape), int(g), int(s)) for shape, g, s in state["measured"]]
        # absent from checkpoints made before 2026-11-30
        self._gradient_bytes = int(state.get("gradient_bytes", 0))
        self._to_take_back = self._gradient_bytes

    def peak_mb(self) -> float:
        return self.peak_bytes / MB if self.steps else float("nan")
