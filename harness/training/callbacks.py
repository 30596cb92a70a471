"""The trainer's callbacks and loggers for one fit, from its config."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint, WeightAveraging
from lightning.pytorch.loggers import CSVLogger, Logger, TensorBoardLogger
from torch.optim.swa_utils import get_ema_avg_fn

from harness.training.efficiency import EfficiencyCallback


def monitored_metric(kind: str) -> str:
    """The dev metric that picks the best checkpoint and stops early."""
    return "val_pearson" if kind == "relatedness" else "val_acc"


def periodic_checkpoint(config: dict[str, Any], out_dir: Path) -> ModelCheckpoint:
    """``last.ckpt`` every ``checkpoint_every_n_steps`` steps, else every
    ``checkpoint_every_minutes`` of training, mid-epoch included: a kill loses at most that."""
    steps, minutes = config["checkpoint_every_n_steps"], config["checkpoint_every_minutes"]
    return ModelCheckpoint(
        dirpath=out_dir / "checkpoints",
        save_last=True,
        save_top_k=0,
        every_n_train_steps=steps or None,
        train_time_interval=None if steps else timedelta(minutes=minutes),
        enable_version_counter=False,  # the best-on-dev callback writes the same last.ckpt
    )


def make_callbacks(config: dict[str, Any], out_dir: Path, monitor: str) -> list[pl.Callback]:
    """Efficiency columns, best-on-dev and periodic checkpoints, early stopping, EMA."""
    callbacks: list[pl.Callback] = [EfficiencyCallback(), periodic_checkpoint(config, out_dir)]
    callbacks.append(
        ModelCheckpoint(
            dirpath=out_dir / "checkpoints",
            filename="best-{epoch}-{step}",
            monitor=monitor,
            mode="max",
            save_top_k=1,
            save_last=True,  # after every validation too, so an epoch's end is never lost
            enable_version_counter=False,
        )
    )
    if config["early_stopping_patience"]:
        callbacks.append(
            EarlyStopping(
                monitor=monitor,
                mode="max",
                patience=config["early_stopping_patience"],
                # check after each validation only: a --max-steps budget shorter than an epoch
                # ends training before any validation has produced the metric
                check_on_train_epoch_end=False,
            )
        )
    if config["ema_decay"]:
        callbacks.append(WeightAveraging(avg_fn=get_ema_avg_fn(config["ema_decay"])))
    return callbacks


def make_loggers(config: dict[str, Any], out_dir: Path) -> list[Logger]:
    """CSV always (``logs/version_N``, read by curve.csv and the reports); TensorBoard
    (``tensorboard/version_N``) beside it when ``logger: tensorboard``."""
    loggers: list[Logger] = [CSVLogger(out_dir, name="logs")]
    if config["logger"] == "tensorboard":
        loggers.append(TensorBoardLogger(out_dir, name="tensorboard", default_hp_metric=False))
    return loggers
