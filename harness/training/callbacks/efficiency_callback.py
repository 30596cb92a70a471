"""Efficiency columns of Bi-BloSAN Table 2 / MTSA Table 1, measured during a real run.

- training time per epoch: wall time of the training loop (data loading included), with the
  clock (:class:`harness.measurement.latency.Stopwatch`) paused while validation runs and
  while a step's memory measurement starts and ends; on CUDA the clock is read after a
  ``synchronize``, only at those moments, so the other steps run unsynchronised as in any run.
  It is the mean of the epochs trained to their last batch (a full pass over the training
  set, the papers' figure), an epoch's parts before and after a resume summed; an epoch a step
  budget or a stop ended inside is left out. A run that completed none scales the batches it
  ran to the epoch's (``train_epochs_timed`` 0 says so);
- peak training memory: tensor bytes as the allocator counts them, by the step-peak rule
  ``sanbench profile`` uses too, the largest over the steps that can be the largest: every
  step unless the encoder declares its memory a function of shapes
  (:class:`harness.measurement.training_memory.StepMemory`; a measured step runs as any other);
- inference time over the dev set at batch 128 (``time_inference``);
- |theta| without the word embedding (``TaskModule.parameter_count``);
- what CPU the timed epochs got (``harness.measurement.cpu_usage``): ``train_cpu_share`` (this
  process's CPU seconds over wall seconds; data-loader worker processes not included),
  ``train_cpu_granted`` (the share of the CPU its threads were ready to use that they got),
  ``train_contended`` (granted < 0.5: the epoch times are inflated by other processes),
  the 1-minute load average when the first timed epoch started and when the last ended, and
  ``train_threads`` (torch's intra-op threads). Like the peak memory (and the steps it was
  measured over) they cover the whole run: they are in every checkpoint, so a run resumed
  after its last step (a stop at its end, or while the trained model was scored) reports the
  uninterrupted run's figures, not none (#54). The dev inference pass records the same as
  ``dev_infer_*``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import lightning.pytorch as pl
import torch
from lightning.pytorch.trainer.states import TrainerFn
from torch.utils.data import DataLoader

from harness.measurement.cpu_usage import CpuUsage, usage_record
from harness.measurement.latency import Stopwatch
from harness.measurement.training_memory import StepMemory, memory_by_shape
from harness.training.checkpoint_position import replayed_epoch_end

TRAIN_SECONDS = "train_seconds"  # logged at each validation: a monitor may watch it too


def _fitting(trainer: pl.Trainer) -> bool:
    """True inside ``Trainer.fit`` (also during its validation loops)."""
    return trainer.state.fn == TrainerFn.FITTING


class EfficiencyCallback(pl.Callback):
    """Times training epochs (validation excluded), tracks peak memory, logs ``train_seconds``.

    ``train_seconds`` (cumulative training time) is logged with every validation so that the
    CSV log holds the dev-accuracy-vs-time curve of Bi-BloSAN Fig. 5.
    """

    def __init__(self) -> None:
        self.epoch_seconds: list[float] = []
        self.clock = Stopwatch(torch.device("cpu"))  # its device is the module's at the start
        self._epoch_start = 0.0
        self.memory: StepMemory | None = None
        self._measuring = False
        # the last epoch, when ended inside: (its seconds, the share of its batches run)
        self._partial: tuple[float, float] | None = None

    @property
    def train_seconds(self) -> float:
        """Training seconds of the stretches paused so far."""
        return self.clock.seconds

    @property
    def cpu(self) -> CpuUsage | None:
        """What CPU the timed stretches got."""
        return self.clock.cpu

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        every_step = not memory_by_shape(pl_module)
        restored, self.memory = self.memory, StepMemory(pl_module.device, every_step)
        if restored is not None:  # the steps measured before a resume
            self.memory.load_state_dict(restored.state_dict())
        self.clock.device = pl_module.device
        # resumed mid-epoch: Lightning does not start that epoch again, the clock goes on
        self.clock.resume()

    def on_train_batch_start(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, batch: Any, batch_idx: int
    ) -> None:
        if self.memory is not None and self.memory.wanted(trainer, pl_module, batch):
            self.clock.pause()  # starting the profiler is not training time
            self.memory.begin(trainer, pl_module, batch)
            self._measuring = True
            self.clock.resume()

    def on_before_backward(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, loss: torch.Tensor
    ) -> None:
        if self.memory is not None:
            self.memory.gradients_freed(trainer, pl_module)

    def on_exception(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, exception: BaseException
    ) -> None:
        if self.memory is not None:
            self._measuring = False
            self.memory.abort()

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, *args) -> None:
        if self.memory is None:
            return
        if not self._measuring:
            self.memory.end(pl_module)
            return
        self._measuring = False
        self.clock.pause()  # reading the profiler's trace is not training time
        self.memory.end(pl_module)
        self.clock.resume()

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._epoch_start = self.train_seconds
        self.clock.resume()

    def on_validation_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer):
            self.clock.pause()

    def on_validation_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer) and not trainer.sanity_checking:
            # under DDP: the slowest process's time, the epoch's wall time
            pl_module.log(
                TRAIN_SECONDS, self.train_seconds, on_epoch=True, sync_dist=True, reduce_fx="max"
            )

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer) and not trainer.sanity_checking:
            self.clock.resume()

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.clock.pause()
        if replayed_epoch_end(trainer):  # that epoch's time is already in
            return
        seconds = self.train_seconds - self._epoch_start
        progress = trainer.fit_loop.epoch_loop.batch_progress
        if progress.is_last_batch:
            self.epoch_seconds.append(seconds)
        elif 0 < trainer.num_training_batches < float("inf"):  # a budget or stop ended it
            self._partial = (seconds, progress.current.completed / trainer.num_training_batches)

    def state_dict(self) -> dict[str, Any]:
        return {
            "epoch_seconds": list(self.epoch_seconds),
            "train_seconds": self.clock.elapsed(),
            "epoch_start": self._epoch_start,
            "partial": self._partial,
            "memory": self.memory.state_dict() if self.memory is not None else None,
            "cpu": dataclasses.asdict(self.cpu) if self.cpu is not None else None,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the timings of the epochs run before a resume (a checkpoint taken mid-epoch:
        the epoch's time so far too, so that epoch's time is its own, not the run's)."""
        self.epoch_seconds = list(state_dict["epoch_seconds"])
        self.clock.seconds = float(state_dict["train_seconds"])
        self._epoch_start = float(state_dict.get("epoch_start", self.train_seconds))
        # absent from checkpoints made before 2026-11-30
        partial = state_dict.get("partial")
        self._partial = (float(partial[0]), float(partial[1])) if partial else None
        if state_dict.get("memory") is not None:
            self.memory = StepMemory(torch.device("cpu"))  # on_train_start moves it
            self.memory.load_state_dict(state_dict["memory"])
        if state_dict.get("cpu") is not None:
            self.clock.cpu = CpuUsage(**state_dict["cpu"])

    def time_per_epoch(self) -> float:
        """The mean of the whole epochs; none whole: the last epoch's time over the share of
        its batches run; nothing run: NaN."""
        if self.epoch_seconds:
            return sum(self.epoch_seconds) / len(self.epoch_seconds)
        if self._partial is not None and self._partial[1] > 0:
            return self._partial[0] / self._partial[1]
        return float("nan")

    def summary(self) -> dict[str, float | str]:
        """The efficiency columns measured so far (before a resume too)."""
        return {
            "train_time_per_epoch_s": self.time_per_epoch(),
            "train_epochs_timed": len(self.epoch_seconds),
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

    def run() -> None:
        for batch in loader:
            module({k: v.to(device) for k, v in batch.items()})

    return Stopwatch.timed(run, device)
