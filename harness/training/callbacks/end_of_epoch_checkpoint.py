"""``EndOfEpochCheckpoint``: the whole training state in ``last.ckpt`` at every epoch's end."""

from __future__ import annotations

from pathlib import Path

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Checkpoint


class EndOfEpochCheckpoint(Checkpoint):
    """``last.ckpt`` at the end of every epoch, after its validation and every other callback's
    end-of-epoch work (Lightning runs checkpoint callbacks last, in their order).

    Lightning's ``ModelCheckpoint`` writes its last checkpoint at an epoch's end only when it
    also saved a top-k file then, i.e. when the dev metric improved; without this, a kill after
    an epoch without improvement would resume from an older checkpoint, and a finished run's
    ``last.ckpt`` would not hold its final state.

    An epoch that the step budget (``max_steps``) ends before its last batch is saved at that
    step instead, as a mid-epoch checkpoint: Lightning still ends the epoch and calls
    ``on_train_epoch_end``, and a checkpoint written there was resumed (a run extended by a
    larger budget) as at an epoch's end, so the rest of that epoch was trained and numbered as
    the next one (one epoch more counted than trained).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def on_train_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        if _budget_ends_epoch_early(trainer):
            trainer.save_checkpoint(self.path, weights_only=False)

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not _budget_ends_epoch_early(trainer):
            trainer.save_checkpoint(self.path, weights_only=False)  # the whole state


def _budget_ends_epoch_early(trainer: pl.Trainer) -> bool:
    """Whether the step budget has been reached before the epoch's last batch."""
    reached = 0 <= trainer.max_steps <= trainer.global_step
    return reached and not trainer.fit_loop.epoch_loop.batch_progress.is_last_batch
