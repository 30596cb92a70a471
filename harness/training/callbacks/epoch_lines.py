"""One line per training epoch for output that is not a terminal (logs, SLURM files)."""

from __future__ import annotations

import multiprocessing
import sys

import lightning.pytorch as pl

from harness.measurement.elapsed import Elapsed
from harness.training.checkpoint_position import replayed_epoch_end


class EpochLines(pl.Callback):
    """``epoch 3: step 120, train_loss 0.41, val_acc 0.87 (12.3 s)`` on stderr, rank 0 only.
    A validation's values are shown only when one ran in that epoch, with its step when that is
    not the line's (``val_acc 0.87 at step 100``): a budget that ends an epoch before its
    validation does not repeat the previous epoch's."""

    def __init__(self) -> None:
        self._elapsed = Elapsed()
        self._validated_at: int | None = None  # the step of this epoch's last validation

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._elapsed.restart()  # a resume may begin mid-epoch

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._elapsed.restart()
        self._validated_at = None

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.sanity_checking:
            self._validated_at = trainer.global_step

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not trainer.is_global_zero or replayed_epoch_end(trainer):  # that line was printed
            return
        shown = {
            k: float(v)
            for k, v in trainer.callback_metrics.items()
            if k.endswith(("_loss", "_acc", "_pearson")) and v.numel() == 1
        }
        values = [
            ", ".join(f"{k} {v:.4g}" for k, v in sorted(shown.items()) if k.startswith(part))
            for part in ("train_", "val_")
        ]
        if self._validated_at is None:
            values[1] = ""
        elif values[1] and self._validated_at != trainer.global_step:
            values[1] += f" at step {self._validated_at}"
        print(
            f"epoch {trainer.current_epoch}: step {trainer.global_step}, "
            f"{', '.join(filter(None, values))} ({self._elapsed.seconds:.1f} s)",
            file=sys.stderr,
            flush=True,
        )


def progress_bar_on(setting: bool | None) -> bool:
    """``progress_bar: null`` means a bar when stderr is a terminal and this is not a worker
    process sharing it with others (``reproduce``'s workers: one line per epoch each)."""
    if setting is not None:
        return bool(setting)
    return sys.stderr.isatty() and multiprocessing.parent_process() is None
