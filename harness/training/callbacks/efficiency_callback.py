"""Efficiency columns of Bi-BloSAN Table 2 / MTSA Table 1, measured during a real run.

- training time per epoch: wall time of the training loop (data loading included), with the
  stopwatch paused while validation runs;
- peak training memory: the profiler's quantity, tensor bytes as the allocator counts them
  (:class:`StepMemory`): the run's own tensors at a training step's start (parameters,
  gradients, optimizer state, the batch) plus the most the allocator held beyond its total at
  that start during the step (activations, kernel workspaces, new gradients and optimizer
  state), the largest over the steps measured; whatever else lives in the process (an earlier
  run of a suite, caches) is not counted, so a run reads the same alone or after others;
- inference time over the dev set at batch 128 (``time_inference``);
- |theta| without the word embedding (``TaskModule.parameter_count``);
- what CPU the timed epochs got (``harness.cpu_usage``): ``train_cpu_share`` (this process's
  CPU seconds over wall seconds; data-loader worker processes not included),
  ``train_cpu_granted`` (the share of the CPU its threads were ready to use that they got),
  ``train_contended`` (granted < 0.5: the epoch times are inflated by other processes),
  the 1-minute load average when the first timed epoch of this process started and when the
  last ended, and ``train_threads`` (torch's intra-op threads). Like the peak memory they cover
  this process's epochs only (not those before a resume). The dev inference pass records the
  same as ``dev_infer_*``.
"""

from __future__ import annotations

import gc
import time
from typing import Any

import lightning.pytorch as pl
import torch
from lightning.pytorch.trainer.states import TrainerFn
from torch.profiler import ProfilerActivity, profile
from torch.utils.data import DataLoader

from harness.cpu_usage import CpuSnapshot, CpuUsage, usage_record
from harness.tensor_memory import allocated_peak, live_bytes


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


def _state_tensors(
    module: torch.nn.Module, optimizers: list, batch: Any, grads: bool = True
) -> list[torch.Tensor]:
    """The run's own tensors: parameters, buffers, gradients (unless ``grads`` is False),
    optimizer state, the batch."""
    tensors = [*module.parameters(), *module.buffers()]
    if grads:
        tensors += [p.grad for p in module.parameters() if p.grad is not None]
    for optimizer in optimizers:
        for state in optimizer.state.values():
            tensors += [value for value in state.values() if isinstance(value, torch.Tensor)]
    tensors += list(batch.values()) if isinstance(batch, dict) else []
    return tensors


class StepMemory:
    """Peak tensor bytes of training steps (the module docstring's definition).

    CUDA: every step, from the allocator's counters (``memory_allocated`` at the step's start,
    ``max_memory_allocated`` after resetting the peak). CPU, which has no such counters: the
    step runs under ``torch.profiler`` with ``profile_memory``, whose trace holds the CPU
    allocator's running total. A step is left out only when a measured step had a batch at
    least as large in every dimension *and* at least as many bytes of state at its start
    (parameters, buffers, optimizer state): a step's peak grows with its batch and with what
    it starts with, so the step left out cannot be the largest. The first step runs before
    Adam's moments exist, so the second is measured too; a handful per run.
    """

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.kind = f"{device.type}_tensor_peak"
        self.peak_bytes = 0
        self.steps = 0  # steps measured
        self._measured: list[tuple[tuple[int, ...], int]] = []  # (batch shape, state bytes)
        self._owned = 0
        self._start_total = 0
        self._profile: profile | None = None

    def _dominated(self, shape: tuple[int, ...], state: int) -> bool:
        return any(
            len(seen) == len(shape)
            and all(a <= b for a, b in zip(shape, seen, strict=True))
            and state <= seen_state
            for seen, seen_state in self._measured
        )

    def begin(self, trainer: pl.Trainer, module: torch.nn.Module, batch: Any) -> bool:
        """Start measuring this step. On CPU, False when a step with a batch as large and as
        much state was measured already, or when gradients are being accumulated (they must
        not be cleared early, see below)."""
        optimizers = trainer.optimizers
        if self.device.type == "cuda":
            self._owned = live_bytes(_state_tensors(module, optimizers, batch))
            torch.cuda.synchronize(self.device)
            self._start_total = torch.cuda.memory_allocated(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            return True
        shape = _batch_shape(batch)
        state = live_bytes(_state_tensors(module, optimizers, None, grads=False))
        if self._dominated(shape, state) or trainer.accumulate_grad_batches != 1:
            return False
        self._measured.append((shape, state))
        # The profiler does not always report the free of a block allocated before it started,
        # and then its running total keeps counting the block: the step must free none. So the
        # previous step's gradients go now rather than at the step's own zero_grad (after its
        # forward, before its backward), garbage is collected first and not during the step.
        for optimizer in optimizers:
            optimizer.zero_grad(set_to_none=True)
        gc.collect()
        gc.disable()
        self._owned = live_bytes(_state_tensors(module, optimizers, batch))
        self._profile = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
        self._profile.__enter__()
        # a first event, allocated and freed at once: the trace's total before it is the start
        torch.empty(1)
        return True

    def end(self) -> None:
        """Take the measured step's peak."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            growth = torch.cuda.max_memory_allocated(self.device) - self._start_total
        else:
            assert self._profile is not None
            self._profile.__exit__(None, None, None)
            growth, self._profile = allocated_peak(self._profile), None
            gc.enable()
        self.peak_bytes = max(self.peak_bytes, self._owned + growth)
        self.steps += 1

    def abort(self) -> None:
        """The measured step failed (an error, a signal): stop the profiler, collect again."""
        if self._profile is not None:
            self._profile.__exit__(None, None, None)
            self._profile = None
        gc.enable()

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
        if self.memory is not None:
            self._pause(pl_module.device)  # starting the profiler is not training time
            self._measuring = self.memory.begin(trainer, pl_module, batch)
            self._resume(pl_module.device)

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
