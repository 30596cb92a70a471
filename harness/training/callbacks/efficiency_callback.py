"""Efficiency columns of Bi-BloSAN Table 2 / MTSA Table 1, measured during a real run.

- training time per epoch: wall time of the training loop (data loading included), with the
  stopwatch paused while validation runs and while a step's memory measurement starts and
  ends; on CUDA the clock is read after a ``synchronize``, only at those moments, so the
  other steps run unsynchronised as in any run;
- peak training memory: the profiler's quantity, tensor bytes as the allocator counts them
  (:class:`harness.measurement.tensor_memory.StepPeak`, the rule ``sanbench profile`` uses too):
  the run's
  own tensors at a training step's start (parameters, buffers, the gradients it holds,
  optimizer state, the batch) plus the most the allocator held beyond them during the step
  (activations, kernel workspaces, new gradients and optimizer state), the largest over the
  steps (:class:`StepMemory` measures those that can be the largest; a measured step runs as
  any other); whatever else lives in the process (an earlier run of a suite, caches) is not
  counted, so a run reads the same alone or after others;
- inference time over the dev set at batch 128 (``time_inference``);
- |theta| without the word embedding (``TaskModule.parameter_count``);
- what CPU the timed epochs got (``harness.measurement.cpu_usage``): ``train_cpu_share`` (this
process's
  CPU seconds over wall seconds; data-loader worker processes not included),
  ``train_cpu_granted`` (the share of the CPU its threads were ready to use that they got),
  ``train_contended`` (granted < 0.5: the epoch times are inflated by other processes),
  the 1-minute load average when the first timed epoch of this process started and when the
  last ended, and ``train_threads`` (torch's intra-op threads). Like the peak memory they cover
  this process's epochs only (not those before a resume). The dev inference pass records the
  same as ``dev_infer_*``.
"""

from __future__ import annotations

import time
from typing import Any

import lightning.pytorch as pl
import torch
from lightning.pytorch.trainer.states import TrainerFn
from torch.utils.data import DataLoader

from harness.measurement.cpu_usage import CpuSnapshot, CpuUsage, usage_record
from harness.measurement.tensor_memory import StepPeak, live_bytes


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _fitting(trainer: pl.Trainer) -> bool:
    """True inside ``Trainer.fit`` (also during its validation loops)."""
    return trainer.state.fn == TrainerFn.FITTING


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


def _batch_tensors(batch: Any) -> list[torch.Tensor]:
    values = batch.values() if isinstance(batch, dict) else []
    return [t for t in values if isinstance(t, torch.Tensor)]


class StepMemory:
    """Peak tensor bytes of training steps (the module docstring's definition; the rule is
    :class:`harness.measurement.tensor_memory.StepPeak`), taken over the steps that can be the
    largest.

    A step runs as any other: it starts holding the previous step's gradients, which Lightning
    frees after the forward (before the backward, :meth:`gradients_freed`). Its peak grows with
    its batch, with the gradients it starts holding and with the rest of what it starts with
    (parameters, buffers, optimizer state). So a step is left out when a measured step had a
    batch at least as large in every dimension, held at least as many bytes of gradients and
    started with at least as many bytes of the rest: it cannot be the largest. The first step
    starts with no gradients and no optimizer state, the second with both, so it is measured
    too; a handful per run, the same steps on every device.
    """

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.kind = f"{device.type}_tensor_peak"
        self.peak_bytes = 0
        self.steps = 0  # steps measured
        # (batch shape, gradient bytes, other state bytes) of the steps measured
        self._measured: list[tuple[tuple[int, ...], int, int]] = []
        self._peak: StepPeak | None = None
        self._batch: list[torch.Tensor] = []

    def _dominated(self, shape: tuple[int, ...], gradients: int, state: int) -> bool:
        return any(
            len(seen) == len(shape)
            and all(a <= b for a, b in zip(shape, seen, strict=True))
            and gradients <= seen_gradients
            and state <= seen_state
            for seen, seen_gradients, seen_state in self._measured
        )

    def wanted(self, trainer: pl.Trainer, module: torch.nn.Module, batch: Any) -> bool:
        """Whether this step is to be measured (remembered if so): no measured step had a batch
        as large, as many gradient bytes and as much other state."""
        shape = _batch_shape(batch)
        gradients = live_bytes(_gradients(module))
        state = live_bytes(_state(module, trainer.optimizers))
        if self._dominated(shape, gradients, state):
            return False
        self._measured.append((shape, gradients, state))
        return True

    def _own(self, trainer: pl.Trainer, module: torch.nn.Module) -> int:
        """Bytes of the run's own tensors: state, gradients, the batch."""
        tensors = _state(module, trainer.optimizers) + _gradients(module) + self._batch
        return live_bytes(tensors)

    def begin(self, trainer: pl.Trainer, module: torch.nn.Module, batch: Any) -> None:
        """Start measuring this step."""
        self._batch = _batch_tensors(batch)
        self._peak = StepPeak(self.device, self._own(trainer, module))

    def gradients_freed(self, trainer: pl.Trainer, module: torch.nn.Module) -> None:
        """The backward is about to start: the previous gradients are gone (Lightning's
        ``zero_grad``), or kept when gradients are being accumulated."""
        if self._peak is not None:
            self._peak.own_now(self._own(trainer, module))

    def end(self) -> None:
        """Take the measured step's peak."""
        assert self._peak is not None
        self.peak_bytes = max(self.peak_bytes, self._peak.stop())
        self.steps += 1
        self._peak, self._batch = None, []

    def abort(self) -> None:
        """The measured step failed (an error, a signal): stop measuring."""
        if self._peak is not None:
            self._peak.abort()
        self._peak, self._batch = None, []

    def peak_mb(self) -> float:
        return self.peak_bytes / 2**20 if self.steps else float("nan")


class EfficiencyCallback(pl.Callback):
    """Times training epochs (validation excluded), tracks peak memory, logs ``train_seconds``.

    ``train_seconds`` (cumulative training time) is logged with every validation so that the
    CSV log holds the dev-accuracy-vs-time curve of Bi-BloSAN Fig. 5.
    """

    def __init__(self) -> None:
        self.epoch_seconds: list[float] = []
        self.train_seconds = 0.0
        self._started: float | None = None
        self._cpu_start: CpuSnapshot | None = None
        self._epoch_start = 0.0
        self.memory: StepMemory | None = None
        self._measuring = False
        self.cpu: CpuUsage | None = None

    def _resume(self, device: torch.device) -> None:
        _sync(device)
        self._started = time.perf_counter()
        self._cpu_start = CpuSnapshot.take()

    def _pause(self, device: torch.device) -> None:
        if self._started is not None and self._cpu_start is not None:
            _sync(device)
            self.train_seconds += time.perf_counter() - self._started
            self._started = None
            usage = CpuUsage.between(self._cpu_start, CpuSnapshot.take())
            self.cpu = usage if self.cpu is None else self.cpu + usage

    def _elapsed(self) -> float:
        """Training seconds so far, the running stretch included."""
        running = 0.0 if self._started is None else time.perf_counter() - self._started
        return self.train_seconds + running

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.memory = StepMemory(pl_module.device)
        # resumed mid-epoch: Lightning does not start that epoch again, the clock goes on
        self._resume(pl_module.device)

    def on_train_batch_start(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: Any, batch_idx: int
    ) -> None:
        if self.memory is not None and self.memory.wanted(trainer, pl_module, batch):
            self._pause(pl_module.device)  # starting the profiler is not training time
            self.memory.begin(trainer, pl_module, batch)
            self._measuring = True
            self._resume(pl_module.device)

    def on_before_backward(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, loss: torch.Tensor
    ) -> None:
        if self._measuring and self.memory is not None:
            self.memory.gradients_freed(trainer, pl_module)

    def on_exception(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, exception: BaseException
    ) -> None:
        if self._measuring and self.memory is not None:
            self._measuring = False
            self.memory.abort()

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, *args) -> None:
        if self._measuring and self.memory is not None:
            self._measuring = False
            self._pause(pl_module.device)  # reading the profiler's trace is not training time
            self.memory.end()
            self._resume(pl_module.device)

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._epoch_start = self.train_seconds
        self._resume(pl_module.device)

    def on_validation_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer):
            self._pause(pl_module.device)

    def on_validation_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer) and not trainer.sanity_checking:
            # under DDP: the slowest process's time, the epoch's wall time
            pl_module.log(
                "train_seconds", self.train_seconds, on_epoch=True, sync_dist=True, reduce_fx="max"
            )

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer) and not trainer.sanity_checking:
            self._resume(pl_module.device)

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._pause(pl_module.device)
        self.epoch_seconds.append(self.train_seconds - self._epoch_start)

    def state_dict(self) -> dict[str, Any]:
        return {
            "epoch_seconds": list(self.epoch_seconds),
            "train_seconds": self._elapsed(),
            "epoch_start": self._epoch_start,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the timings of the epochs run before a resume (a checkpoint taken mid-epoch:
        the epoch's time so far too, so that epoch's time is its own, not the run's)."""
        self.epoch_seconds = list(state_dict["epoch_seconds"])
        self.train_seconds = float(state_dict["train_seconds"])
        self._epoch_start = float(state_dict.get("epoch_start", self.train_seconds))

    def summary(self) -> dict[str, float | str]:
        """The efficiency columns measured so far (this process's epochs only)."""
        epochs = self.epoch_seconds
        return {
            "train_time_per_epoch_s": sum(epochs) / len(epochs) if epochs else float("nan"),
            "train_time_s": self.train_seconds,
            "peak_train_mem_mb": self.memory.peak_mb() if self.memory else float("nan"),
            "peak_train_mem_kind": self.memory.kind if self.memory else "",
            # how many steps the peak was taken over (StepMemory measures only those that can
            # be the largest): a reader can tell a one-step peak from one over every shape
            "peak_train_mem_steps": self.memory.steps if self.memory else 0,
            **usage_record(self.cpu, "train_"),
            "train_threads": torch.get_num_threads(),
        }


@torch.no_grad()
def time_inference(
    module: torch.nn.Module, loader: DataLoader, device: torch.device
) -> tuple[float, CpuUsage]:
    """Seconds to run ``module`` in eval mode over every batch of ``loader`` (MTSA Table 1),
    and what CPU the pass got (contended or not)."""
    module.eval().to(device)
    _sync(device)
    before = CpuSnapshot.take()
    start = time.perf_counter()
    for batch in loader:
        module({k: v.to(device) for k, v in batch.items()})
    _sync(device)
    seconds = time.perf_counter() - start
    return seconds, CpuUsage.between(before, CpuSnapshot.take())
