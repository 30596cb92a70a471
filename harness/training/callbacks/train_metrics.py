"""``LastTrainMetrics``: the last training epoch's metrics, kept in every checkpoint."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl

from harness.training.callbacks.end_of_epoch_checkpoint import replayed_epoch_end
from harness.training.callbacks.stop_on_signal import budget_reached


class LastTrainMetrics(pl.Callback):
    """The metrics of the last training epoch (``train_acc``, ``train_loss``, ...), as they stood
    at its end, saved in every checkpoint and restored with it.

    A run resumed after its last epoch ended (stopped at that epoch's end, or while the trained
    model was scored) trains no epoch, and Lightning's ``callback_metrics`` then hold no
    training metric: ``metrics.json`` lost ``train_acc`` (#54). Not a checkpoint callback:
    Lightning runs it before those, so the checkpoint of a stop at an epoch's end holds that
    epoch's values."""

    def __init__(self) -> None:
        self.metrics: dict[str, float] = {}
        # the epochs trained to their last batch (metrics.json's epochs); None: not counted
        # from the start (a checkpoint made before 2026-11-30)
        self.epochs: int | None = 0

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if replayed_epoch_end(trainer):  # the empty end of a resumed one: its values are saved
            return
        if self.epochs is not None and trainer.fit_loop.epoch_loop.batch_progress.is_last_batch:
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
        on into the next epoch, or nothing (#54: ``epochs`` and ``train_acc`` were short)."""
        metrics = getattr(pl_module, "running_metrics", None)
        if metrics is None or not _epoch_end_skipped_on_resume(trainer):
            return
        saved = checkpoint["callbacks"][self.state_key]
        saved["metrics"] = {name: float(m.compute()) for name, m in metrics("train").items()}
        last_batch = trainer.fit_loop.epoch_loop.batch_progress.is_last_batch
        if self.epochs is not None and last_batch:
            saved["epochs"] = self.epochs + 1

    def state_dict(self) -> dict[str, Any]:
        return {"metrics": dict(self.metrics), "epochs": self.epochs}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.metrics = dict(state_dict.get("metrics", {}))
        self.epochs = state_dict.get("epochs")


def _epoch_end_skipped_on_resume(trainer: pl.Trainer) -> bool:
    """Whether the epoch's batches are over (its last one run, or the step budget reached) and
    its end not begun: Lightning resumes such a checkpoint past that end."""
    epoch = trainer.fit_loop.epoch_progress.current
    batches_over = trainer.fit_loop.epoch_loop.batch_progress.is_last_batch or budget_reached(
        trainer
    )
    return epoch.processed < epoch.started and batches_over
