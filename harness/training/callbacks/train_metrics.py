"""``LastTrainMetrics``: the last training epoch's metrics, kept in every checkpoint."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl

from harness.training.callbacks.end_of_epoch_checkpoint import replayed_epoch_end


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

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if replayed_epoch_end(trainer):  # the empty end of a resumed one: its values are saved
            return
        measured = {
            name: float(value)
            for name, value in trainer.callback_metrics.items()
            if name.startswith("train_") and not name.endswith("_step") and value.numel() == 1
        }
        if measured:
            self.metrics = measured

    def state_dict(self) -> dict[str, Any]:
        return {"metrics": dict(self.metrics)}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.metrics = dict(state_dict.get("metrics", {}))
