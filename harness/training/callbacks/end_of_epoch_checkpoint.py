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
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        trainer.save_checkpoint(self.path, weights_only=False)  # the whole state
