"""``EndOfEpochCheckpoint``: the whole training state in ``last.ckpt`` at every epoch's end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Checkpoint

from harness.training.atomic_checkpoint_io import PART_SUFFIX, use_atomic_checkpoints
from harness.training.checkpoint_position import (
    budget_ends_epoch_early,
    replayed_epoch_end,
    saved_at_epoch_end,
    saved_budget_reached,
    saved_inside_epoch,
    validated_epoch_end,
)

# in a checkpoint written at an epoch's end after the validation of its last step
VALIDATED_EPOCH_END = "sanbench_validated_epoch_end"


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

    Every checkpoint written at an epoch's end (this one's, ``StopOnSignal``'s, a deferred
    periodic save) is marked when a validation followed the epoch's last step. Lightning 2.6
    resumes such a checkpoint under a step budget (``max_steps`` set: its "iteration-based
    training") by running that epoch's end again, empty: it skips the validation already done
    but still counts one more logging step (``_batches_that_stepped``), so every later row of
    ``metrics.csv`` and ``curve.csv`` was one step late (#54). The saved count is lowered by one
    as such a checkpoint is loaded, and the empty epoch end raises it back; that end writes
    nothing (:func:`replayed_epoch_end`).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.resumed_finished_epoch = False  # set by on_load_checkpoint (_finish_epoch)

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        """Checkpoints written whole or not at all (:class:`AtomicCheckpointIO`); what a kill
        left of one being written is removed."""
        use_atomic_checkpoints(trainer.strategy)
        for part in self.path.parent.glob(f".*.ckpt.*{PART_SUFFIX}"):
            part.unlink(missing_ok=True)

    def on_train_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        if budget_ends_epoch_early(trainer):
            trainer.save_checkpoint(self.path, weights_only=False)

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if not budget_ends_epoch_early(trainer) and not replayed_epoch_end(trainer):
            trainer.save_checkpoint(self.path, weights_only=False)  # the whole state

    def on_save_checkpoint(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, checkpoint: dict[str, Any]
    ) -> None:
        checkpoint[VALIDATED_EPOCH_END] = validated_epoch_end(trainer)

    def on_load_checkpoint(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, checkpoint: dict[str, Any]
    ) -> None:
        """Before Lightning restores its loops from ``checkpoint``, under a step budget: one
        logging step fewer for the empty epoch end it runs on resuming a validated epoch's end;
        an epoch end no validation followed is saved as finished (:func:`_finish_epoch`)."""
        if trainer.max_steps == -1 or VALIDATED_EPOCH_END not in checkpoint:
            return
        loops = checkpoint["loops"]["fit_loop"]
        if saved_budget_reached(checkpoint, trainer.max_steps) and saved_inside_epoch(loops):
            _end_epoch(loops)  # the budget's last step: nothing is trained on resume
            return
        if checkpoint[VALIDATED_EPOCH_END]:
            loops["epoch_loop.state_dict"]["_batches_that_stepped"] -= 1
        elif saved_at_epoch_end(loops):
            _finish_epoch(loops)
            self.resumed_finished_epoch = True

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """The first epoch after an epoch end saved as finished starts as a new epoch: the
        batch loop does not restart (it would skip a batch it takes for the end of a
        validation: Lightning's "restarted on last")."""
        if self.resumed_finished_epoch:
            self.resumed_finished_epoch = False
            trainer.fit_loop.epoch_loop.restarting = False


def _end_epoch(loops: dict[str, Any]) -> None:
    """The saved fit loop ``loops``, written at the step that ended the budget before its
    epoch's end, as training left it: that epoch ended, its last step logged.

    Lightning resumes a checkpoint whose budget is reached by training nothing, not even the
    rest of that step and epoch: the test scores were logged one step and one epoch early
    (``step`` 5, ``epoch`` 1 for the uninterrupted run's 6 and 2, #54)."""
    for counts in loops["epoch_progress"].values():
        counts["processed"] = counts["completed"] = counts["started"]
    loops["epoch_loop.state_dict"]["_batches_that_stepped"] += 1


def _finish_epoch(loops: dict[str, Any]) -> None:
    """The saved fit loop ``loops`` as at the next epoch's start: the epoch completed, the
    epoch's batch, step and validation counts begun again (Lightning's ``reset_on_run``).

    Lightning 2.6 resumes an epoch's end under a step budget as an epoch end to run again,
    expecting the validation of its last batch to come first; when none does (the epoch is not
    one ``check_val_every_n_epoch`` validates), it trained one batch more in the finished epoch
    (#54). Saved as finished, the resume starts the next epoch as the uninterrupted run did."""
    for counts in loops["epoch_progress"].values():
        counts["completed"] = counts["processed"]
    batches = loops["epoch_loop.batch_progress"]
    batches["current"] = dict.fromkeys(batches["current"], 0)
    batches["is_last_batch"] = False
    steps = loops["epoch_loop.automatic_optimization.optim_progress"]["optimizer"]
    for progress in (loops["epoch_loop.scheduler_progress"], *steps.values()):
        progress["current"] = dict.fromkeys(progress["current"], 0)
    validations = loops["epoch_loop.val_loop.batch_progress"]
    validations["total"] = dict.fromkeys(validations["total"], 0)
