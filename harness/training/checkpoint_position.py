"""Where training stands for a checkpoint: one written now (from the live trainer) or one
saved (from its ``loops``): an epoch's last batch, its end, a validation that follows a step,
the step budget, an optimizer step whose accumulated batches remain. Read from Lightning 2.6's
loop counters, in one place for the callbacks that save, stop and keep the training figures
(``harness/training/callbacks/``)."""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl


def at_last_batch(trainer: pl.Trainer) -> bool:
    """Whether the epoch's last batch has run."""
    return trainer.fit_loop.epoch_loop.batch_progress.is_last_batch


def epoch_end_begun(trainer: pl.Trainer) -> bool:
    """Whether the epoch's end has begun (its ``on_train_epoch_end`` hooks run or ran)."""
    epoch = trainer.fit_loop.epoch_progress.current
    return epoch.processed == epoch.started


def budget_reached(trainer: pl.Trainer) -> bool:
    """Whether the step budget (``max_steps``) has been reached: training ends after this step
    (Lightning still ends its epoch: the epoch's end hooks, its logged row)."""
    return 0 <= trainer.max_steps <= trainer.global_step


def budget_ends_epoch_early(trainer: pl.Trainer) -> bool:
    """Whether the step budget has been reached before the epoch's last batch."""
    return budget_reached(trainer) and not at_last_batch(trainer)


def validation_follows(trainer: pl.Trainer, batch_idx: int) -> bool:
    """Whether Lightning validates after training batch ``batch_idx`` (Lightning 2.6's
    ``_TrainingEpochLoop._should_check_val_fx`` from public attributes). False for a validation
    every duration (``val_check_interval`` DD:HH:MM:SS): the clock decides it after the step."""
    every_n_epochs = trainer.check_val_every_n_epoch
    if not trainer.enable_validation or (
        every_n_epochs is not None and (trainer.current_epoch + 1) % every_n_epochs
    ):
        return False
    last_batch = at_last_batch(trainer)
    every_n_batches = trainer.val_check_batch
    if trainer.should_stop or (last_batch and every_n_batches == float("inf")):
        return True  # early stopping validates first; a loader without a length at its end
    if every_n_batches is None or every_n_batches == float("inf"):
        return every_n_batches is not None and last_batch
    index = trainer.fit_loop.epoch_loop.total_batch_idx if every_n_epochs is None else batch_idx
    return (index + 1) % every_n_batches == 0


def validated_epoch_end(trainer: pl.Trainer) -> bool:
    """Whether training stands at an epoch's end whose last step a validation followed."""
    at_end = epoch_end_begun(trainer) and at_last_batch(trainer)
    return at_end and validation_follows(trainer, trainer.fit_loop.epoch_loop.batch_idx)


def served_at_epoch_end(trainer: pl.Trainer, batch_idx: int) -> bool:
    """Whether what is due after training batch ``batch_idx`` (a stop, a periodic save) waits:
    for the validation that follows it, or for the epoch's end after the epoch's last batch.

    Saved between an epoch's last batch and its end, a checkpoint is resumed by Lightning 2.6
    past that end: the epoch's ``metrics.csv`` row, console line and time were lost (#54)."""
    return at_last_batch(trainer) or validation_follows(trainer, batch_idx)


def step_unfinished(trainer: pl.Trainer) -> bool:
    """Whether the training batch just run leaves its optimizer step unfinished: gradients
    accumulated (``accumulate_grad_batches``) for a step whose batches remain (the epoch's last
    batch ends a step too: Lightning 2.6's ``_TrainingEpochLoop._should_accumulate``). What is
    due then (a stop, a periodic save) waits for the step: a checkpoint holds no accumulated
    gradient, so its resume stepped on the step's later batches alone (#54)."""
    batches = trainer.fit_loop.epoch_loop.batch_progress
    step_done = batches.current.ready % trainer.accumulate_grad_batches == 0
    epoch_done = batches.is_last_batch or batches.current.ready == trainer.num_training_batches
    return not (step_done or epoch_done)


def served_at_validation_end(trainer: pl.Trainer) -> bool:
    """Whether what waits for a validation (a stop, a periodic save) is served at its end: a
    validation inside the epoch after an optimizer step's last batch; the epoch's last is
    served at the epoch's end, where the best-on-dev ``ModelCheckpoint`` saves the best of a
    validation once an epoch, and one inside a step at the step's end (:func:`step_unfinished`)."""
    return not at_last_batch(trainer) and not step_unfinished(trainer)


def batches_remain(trainer: pl.Trainer) -> bool:
    """Whether the training epoch has batches left: a checkpoint written now resumes inside it."""
    return not epoch_end_begun(trainer) and not at_last_batch(trainer)


def epoch_end_skipped_on_resume(trainer: pl.Trainer) -> bool:
    """Whether the epoch's batches are over (its last one run, or the step budget reached) and
    its end not begun: Lightning resumes a checkpoint written now past that end."""
    batches_over = at_last_batch(trainer) or budget_reached(trainer)
    return not epoch_end_begun(trainer) and batches_over


def replayed_epoch_end(trainer: pl.Trainer) -> bool:
    """Whether this ``on_train_epoch_end`` is the empty one Lightning 2.6 runs again on resuming
    an epoch-end checkpoint under a step budget (its fit loop "restarted on epoch end")."""
    return trainer.fit_loop.restarted_on_epoch_end


def saved_at_epoch_end(loops: dict[str, Any]) -> bool:
    """Whether the fit loop's saved state ``loops`` stands at an epoch's end: its last batch
    run, the epoch processed and not yet completed (Lightning's own progress counters)."""
    epoch = loops["epoch_progress"]["current"]
    last_batch = loops["epoch_loop.batch_progress"]["is_last_batch"]
    return last_batch and epoch["processed"] == epoch["started"] == epoch["completed"] + 1


def saved_inside_epoch(loops: dict[str, Any]) -> bool:
    """Whether the saved fit loop ``loops`` stands inside an epoch (started, not processed)."""
    epoch = loops["epoch_progress"]["current"]
    return epoch["processed"] == epoch["started"] - 1


def saved_budget_reached(checkpoint: dict[str, Any], max_steps: int) -> bool:
    """Whether ``checkpoint`` was saved at or past a step budget of ``max_steps`` (-1: none)."""
    return 0 <= max_steps <= checkpoint["global_step"]
