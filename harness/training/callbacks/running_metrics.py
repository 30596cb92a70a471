"""``RunningTrainMetrics``: the training epoch's running metrics, kept in a checkpoint written
inside it."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl
import torch

RUNNING = "sanbench_running_train_metrics"  # the checkpoint's key


def batches_remain(trainer: pl.Trainer) -> bool:
    """Whether the training epoch has batches left: a checkpoint written now resumes inside it."""
    epoch = trainer.fit_loop.epoch_progress.current
    last_batch = trainer.fit_loop.epoch_loop.batch_progress.is_last_batch
    return epoch.processed < epoch.started and not last_batch


class RunningTrainMetrics(pl.Callback):
    """The state of the metrics the training epoch accumulates (``train_loss``, ``train_acc``,
    ...: ``TaskModule.running_metrics``) in a checkpoint written inside the epoch, restored on
    resuming it, so that the epoch's figures count its batches before the stop too (#54: a stop
    at batch 3 of 4 and a resume reported the accuracy of batch 4 alone).

    Only while batches remain: Lightning resumes a checkpoint written after the epoch's last
    batch at the next epoch, without that epoch's end, and the restored state would count into
    the next one. Under DDP the processes' states are summed into the checkpoint and restored on
    rank 0."""

    def on_save_checkpoint(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, checkpoint: dict[str, Any]
    ) -> None:
        metrics = getattr(pl_module, "running_metrics", None)
        if metrics is None or not batches_remain(trainer):
            return
        saved = {}
        for name, metric in metrics("train").items():
            with metric.sync_context(should_unsync=True):  # a no-op in one process
                saved[name] = {k: _detached(v) for k, v in metric.metric_state.items()}
        checkpoint[RUNNING] = saved

    def on_load_checkpoint(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, checkpoint: dict[str, Any]
    ) -> None:
        metrics = getattr(pl_module, "running_metrics", None)
        if metrics is None or RUNNING not in checkpoint or trainer.global_rank != 0:
            return
        for name, metric in metrics("train").items():
            for key, value in checkpoint[RUNNING].get(name, {}).items():
                setattr(metric, key, _moved(value, metric.device))


def _detached(value: torch.Tensor | list[torch.Tensor]) -> torch.Tensor | list[torch.Tensor]:
    if isinstance(value, list):
        return [v.detach().clone() for v in value]
    return value.detach().clone()


def _moved(
    value: torch.Tensor | list[torch.Tensor], device: torch.device
) -> torch.Tensor | list[torch.Tensor]:
    return [v.to(device) for v in value] if isinstance(value, list) else value.to(device)
