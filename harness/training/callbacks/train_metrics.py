"""``TrainMetrics``: the training epochs' metrics in every checkpoint: the last epoch's values and
the running epoch's state."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl
import torch

from harness.training.checkpoint_position import (
    at_last_batch,
    batches_remain,
    epoch_end_skipped_on_resume,
    replayed_epoch_end,
)

RUNNING = "sanbench_running_train_metrics"  # the checkpoint's key of the running epoch's state


class TrainMetrics(pl.Callback):
    """The metrics of the training epochs (``train_acc``, ``train_loss``, ...), saved in every
    checkpoint and restored with it: the last epoch's, as they stood at its end, with the count
    of epochs trained to their last batch; and the state of the running epoch's
    (``TaskModule.running_metrics``) in a checkpoint written inside it.

    A run resumed after its last epoch ended (stopped at that epoch's end, or while the trained
    model was scored) trains no epoch, and Lightning's ``callback_metrics`` then hold no
    training metric: ``metrics.json`` lost ``train_acc`` (#54). A stop at batch 3 of 4 and a
    resume reported the accuracy of batch 4 alone (#54): the running state is restored when the
    epoch is resumed inside, only while batches remain (Lightning resumes a checkpoint written
    after the epoch's last batch at the next epoch, without that epoch's end, and the restored
    state would count into the next one). Under DDP the processes' states are summed into the
    checkpoint and restored on rank 0. Not a checkpoint callback: Lightning runs it before
    those, so the checkpoint of a stop at an epoch's end holds that epoch's values."""

    def __init__(self) -> None:
        self.metrics: dict[str, float] = {}
        # the epochs trained to their last batch (metrics.json's epochs); None: not counted
        # from the start (a checkpoint made before 2026-11-30)
        self.epochs: int | None = 0

    @property
    def state_key(self) -> str:
        """The key of this state in checkpoints written before the two callbacks were one."""
        return "LastTrainMetrics"

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if replayed_epoch_end(trainer):  # the empty end of a resumed one: its values are saved
            return
        if self.epochs is not None and at_last_batch(trainer):
            self.epochs += 1
        measured = {
            name: float(value)
            for name, value in trainer.callback_metrics.items()
            if name.startswith("train_") and not name.endswith("_step") and value.numel() == 1
        }
        if measured:
            self.metrics = measured

    def on_save_checkpoint(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, checkpoint: dict[str, Any]
    ) -> None:
        """A checkpoint whose resume runs no end for this epoch (written after its last batch,
        or at the step that ends the budget, before the epoch's end) holds this epoch's figures
        as its end would log them, and counts the epoch if its last batch ran: a resume trains
        on into the next epoch, or nothing (#54: ``epochs`` and ``train_acc`` were short). One
        written while batches remain holds the running state too."""
        metrics = getattr(pl_module, "running_metrics", None)
        if metrics is None:
            return
        if epoch_end_skipped_on_resume(trainer):
            saved = checkpoint["callbacks"][self.state_key]
            saved["metrics"] = {name: float(m.compute()) for name, m in metrics("train").items()}
            if self.epochs is not None and at_last_batch(trainer):
                saved["epochs"] = self.epochs + 1
        if batches_remain(trainer):
            running = {}
            for name, metric in metrics("train").items():
                with metric.sync_context(should_unsync=True):  # a no-op in one process
                    running[name] = {k: _detached(v) for k, v in metric.metric_state.items()}
            checkpoint[RUNNING] = running

    def on_load_checkpoint(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, checkpoint: dict[str, Any]
    ) -> None:
        metrics = getattr(pl_module, "running_metrics", None)
        if metrics is None or RUNNING not in checkpoint or trainer.global_rank != 0:
            return
        for name, metric in metrics("train").items():
            for key, value in checkpoint[RUNNING].get(name, {}).items():
                setattr(metric, key, _moved(value, metric.device))

    def state_dict(self) -> dict[str, Any]:
        return {"metrics": dict(self.metrics), "epochs": self.epochs}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.metrics = dict(state_dict.get("metrics", {}))
        self.epochs = state_dict.get("epochs")


def _detached(value: torch.Tensor | list[torch.Tensor]) -> torch.Tensor | list[torch.Tensor]:
    if isinstance(value, list):
        return [v.detach().clone() for v in value]
    return value.detach().clone()


def _moved(
    value: torch.Tensor | list[torch.Tensor], device: torch.device
) -> torch.Tensor | list[torch.Tensor]:
    return [v.to(device) for v in value] if isinstance(value, list) else value.to(device)
