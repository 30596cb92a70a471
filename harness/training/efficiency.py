"""Efficiency columns of Bi-BloSAN Table 2 / MTSA Table 1, measured during a real run.

- training time per epoch: wall time of the training loop (data loading included), with the
  stopwatch paused while validation runs;
- peak training memory: CUDA ``max_memory_allocated`` over the fit; on CPU the growth of the
  process's peak resident set (Linux ``VmHWM``, reset through ``/proc/self/clear_refs``) over
  the resident set at the start of the fit, i.e. activations, gradients and optimizer state;
- inference time over the dev set at batch 128 (``time_inference``);
- |theta| without the word embedding (``TaskModule.parameter_count``);
- what CPU the timed epochs got (``harness.cpu_usage``): ``train_cpu_share`` (this process's
  CPU seconds over wall seconds; data-loader worker processes not included),
  ``train_cpu_granted`` (the share of the CPU its threads were ready to use that they got),
  ``train_contended`` (granted < 0.5: the epoch times are inflated by other processes),
  the 1-minute load average when the first timed epoch of this process started and when the
  last ended, and ``train_threads`` (torch's intra-op threads). Like the peak memory they cover
  this process's epochs only (not those before a resume).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import psutil
import torch
from lightning.pytorch.trainer.states import TrainerFn
from torch.utils.data import DataLoader

from harness.cpu_usage import CpuSnapshot, CpuUsage, usage_record

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _rss_peak_bytes() -> int | None:
    """Linux peak resident set (VmHWM) in bytes, or None where /proc is unavailable."""
    try:
        match = re.search(r"VmHWM:\s+(\d+) kB", _STATUS.read_text())
    except OSError:
        return None
    return int(match.group(1)) * 1024 if match else None


def _reset_rss_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False when not permitted."""
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


def _fitting(trainer: pl.Trainer) -> bool:
    """True inside ``Trainer.fit`` (also during its validation loops)."""
    return trainer.state.fn == TrainerFn.FITTING


class PeakMemory:
    """Peak memory of a code region in MB (see the module docstring for what is counted)."""

    def __init__(self, device: torch.device):
        self.device = device
        self.kind = "cuda_max_allocated" if device.type == "cuda" else "cpu_peak_rss_growth"
        self._base = 0

    def start(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
            return
        if not _reset_rss_peak():
            self.kind = "cpu_process_peak_rss"  # lifetime peak: VmHWM cannot be reset here
            return
        self._base = psutil.Process().memory_info().rss

    def peak_mb(self) -> float:
        if self.device.type == "cuda":
            return torch.cuda.max_memory_allocated(self.device) / 2**20
        peak = _rss_peak_bytes()
        if peak is None:
            peak = psutil.Process().memory_info().rss
        return max(peak - self._base, 0) / 2**20


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
        self.memory: PeakMemory | None = None
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
        self.memory = PeakMemory(pl_module.device)
        self.memory.start()
        # resumed mid-epoch: Lightning does not start that epoch again, the clock goes on
        self._resume(pl_module.device)

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._epoch_start = self.train_seconds
        self._resume(pl_module.device)

    def on_validation_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer):
            self._pause(pl_module.device)

    def on_validation_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if _fitting(trainer) and not trainer.sanity_checking:
            pl_module.log("train_seconds", self.train_seconds, on_epoch=True)

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
def time_inference(module: torch.nn.Module, loader: DataLoader, device: torch.device) -> float:
    """Seconds to run ``module`` in eval mode over every batch of ``loader`` (MTSA Table 1)."""
    module.eval().to(device)
    _sync(device)
    start = time.perf_counter()
    for batch in loader:
        module({k: v.to(device) for k, v in batch.items()})
    _sync(device)
    return time.perf_counter() - start
