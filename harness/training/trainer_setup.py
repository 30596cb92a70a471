"""The trainer's callbacks and loggers for one fit, from its ``run:`` options."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint, WeightAveraging
from lightning.pytorch.loggers import CSVLogger, Logger
from torch.optim.swa_utils import get_ema_avg_fn

from harness.training.callbacks.efficiency_callback import EfficiencyCallback
from harness.training.callbacks.end_of_epoch_checkpoint import EndOfEpochCheckpoint
from harness.training.callbacks.epoch_lines import EpochLines, progress_bar_on
from harness.training.callbacks.folder_checkpoint import FolderCheckpoint
from harness.training.callbacks.non_finite_loss_stop import NonFiniteLossStop
from harness.training.callbacks.random_states import RandomStates
from harness.training.callbacks.stop_on_signal import StopOnSignal
from harness.training.callbacks.train_metrics import TrainMetrics
from harness.training.checkpoint_position import (
    served_at_epoch_end,
    served_at_validation_end,
    step_unfinished,
)
from harness.training.settings.run_options import RunOptions
from reports.contracts.fit_folder import LOGS, FitRunFolder


def monitored_metric(kind: str) -> str:
    """The dev metric that picks the best checkpoint and stops early."""
    return "val_pearson" if kind == "relatedness" else "val_acc"


class PeriodicCheckpoint(FolderCheckpoint):
    """Lightning's ``ModelCheckpoint``, with two changes.

    A save due at a step that a validation follows, or at an epoch's last step
    (:func:`served_at_epoch_end`), is written after that validation, at the points where
    :class:`StopOnSignal` stops: the validation's end inside an epoch, the epoch's end for its
    last step; list it after the best-on-dev checkpoint, which
    then has seen that validation. Written at the step's end, it was resumed as a step whose
    validation had run: a hard kill during it lost the validation's ``curve.csv`` row and its
    chance at the best checkpoint (#54). A save due inside an optimizer step whose gradients
    accumulate (every so many minutes) waits for the step's last batch (:func:`step_unfinished`):
    a checkpoint holds no accumulated gradient.

    No ``last.ckpt`` at the end of training: that one is written after the fit loop counted the
    last epoch as done, so an epoch the step budget ended early was resumed as finished (the
    extension trained its rest as the next epoch); :class:`EndOfEpochCheckpoint` has already
    written the final state."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.due: tuple[Any, Any, int] | None = None  # a deferred step end's outputs, batch, index

    def on_train_batch_end(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
        batch_idx: int,
    ) -> None:  # fmt: skip
        """Lightning's save every N steps or minutes, or, if a validation follows, after it;
        none inside an optimizer step (a later batch's check saves)."""
        self.due = None
        if step_unfinished(trainer):
            return
        if served_at_epoch_end(trainer, batch_idx):
            self.due = (outputs, batch, batch_idx)
        else:
            super().on_train_batch_end(trainer, pl_module, outputs, batch, batch_idx)

    def _save_if_due(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.due is not None:
            due, self.due = self.due, None
            super().on_train_batch_end(trainer, pl_module, *due)

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """A save due before a validation inside the epoch (:func:`served_at_validation_end`)."""
        super().on_validation_end(trainer, pl_module)
        if served_at_validation_end(trainer):
            self._save_if_due(trainer, pl_module)  # nothing is due outside a fit's steps

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        super().on_train_epoch_end(trainer, pl_module)
        self._save_if_due(trainer, pl_module)

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """Nothing: the final state is ``EndOfEpochCheckpoint``'s."""


def periodic_checkpoint(run: RunOptions, out_dir: Path) -> ModelCheckpoint:
    """``last.ckpt`` every ``checkpoint_every_n_steps`` steps, else every
    ``checkpoint_every_minutes`` of training, mid-epoch included: a kill loses at most that."""
    steps, minutes = run.checkpoint_every_n_steps, run.checkpoint_every_minutes
    return PeriodicCheckpoint(
        dirpath=FitRunFolder(out_dir).checkpoints,
        save_last=True,
        save_top_k=0,
        every_n_train_steps=steps or None,
        train_time_interval=None if steps else timedelta(minutes=minutes),
        enable_version_counter=False,  # EndOfEpochCheckpoint writes the same last.ckpt
    )


def make_callbacks(run: RunOptions, out_dir: Path, monitor: str) -> list[pl.Callback]:
    """Efficiency columns, the non-finite loss stop, the generators' states, the last epoch's
    training metrics and the running epoch's in every checkpoint, periodic, best-on-dev and
    end-of-epoch checkpoints, a checkpoint on SIGINT/SIGTERM, early stopping, EMA."""
    folder = FitRunFolder(out_dir)
    callbacks: list[pl.Callback] = [
        EfficiencyCallback(),
        RandomStates(),
        NonFiniteLossStop(),
        TrainMetrics(),  # before the checkpoint callbacks: they save its epoch's values
        FolderCheckpoint(
            dirpath=folder.checkpoints,
            filename="best-{epoch}-{step}",
            monitor=monitor,
            mode="max",
            save_top_k=1,
            enable_version_counter=False,
        ),
        # after the best-on-dev one: a save after a validation holds the best it picked there
        periodic_checkpoint(run, out_dir),
    ]
    callbacks.append(EndOfEpochCheckpoint(folder.last_checkpoint))
    # the last checkpoint callback: a stop waits for the best-on-dev one to see a validation
    callbacks.append(StopOnSignal(folder.last_checkpoint))
    if run.early_stopping_patience:
        callbacks.append(
            EarlyStopping(
                monitor=monitor,
                mode="max",
                patience=run.early_stopping_patience,
                # check after each validation only: a --max-steps budget shorter than an epoch
                # ends training before any validation has produced the metric
                check_on_train_epoch_end=False,
            )
        )
    if run.ema_decay:
        callbacks.append(WeightAveraging(avg_fn=get_ema_avg_fn(run.ema_decay)))
    return callbacks


def trainer_arguments(
    run: RunOptions,
    out_dir: Path,
    kind: str,
    progress_bar: bool | None,
    logger: Logger | list[Logger] | bool | None = None,
    callbacks: list[pl.Callback] | None = None,
) -> dict[str, Any]:
    """``Trainer`` keywords a fit adds to its config's: our callbacks after ``callbacks``; the
    CSV logger (``out_dir/logs/version_N``, read by curve.csv and the reports) before the
    config's ``logger`` (e.g. TensorBoard); ``progress_bar`` None = a bar in a terminal, else
    one line per epoch."""
    progress = progress_bar_on(progress_bar)
    ours = make_callbacks(run, out_dir, monitored_metric(kind))
    chosen = [] if isinstance(logger, bool) or logger is None else logger
    loggers = [CSVLogger(out_dir, name=LOGS), *(chosen if isinstance(chosen, list) else [chosen])]
    return {
        "callbacks": [*(callbacks or []), *ours, *([] if progress else [EpochLines()])],
        "logger": loggers,
        "enable_progress_bar": progress,
        "default_root_dir": out_dir,
    }
