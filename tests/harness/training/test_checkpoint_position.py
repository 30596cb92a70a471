"""Each position predicate on a fake trainer state (the attributes of Lightning 2.6's loops that
it reads), and the saved-state ones on a checkpoint's ``loops``."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from harness.training import checkpoint_position as position

INF = float("inf")


def trainer(
    *,
    last_batch: bool = False,
    started: int = 1,
    processed: int = 0,
    max_steps: int = -1,
    global_step: int = 3,
    batch_idx: int = 2,
    total_batch_idx: int = 2,
    every_n_epochs: int | None = 1,
    current_epoch: int = 0,
    val_check_batch: float | None = 4,
    enable_validation: bool = True,
    should_stop: bool = False,
    restarted_on_epoch_end: bool = False,
    accumulate: int = 1,
    num_training_batches: float = 4,
) -> Any:
    """A stand-in for ``pl.Trainer`` with the attributes the predicates read (defaults: batch 3
    of 4 of epoch 0 done, its end not begun, no step budget, a validation every epoch, a step
    every batch)."""
    epoch_loop = SimpleNamespace(
        batch_progress=SimpleNamespace(
            is_last_batch=last_batch, current=SimpleNamespace(ready=batch_idx + 1)
        ),
        batch_idx=batch_idx,
        total_batch_idx=total_batch_idx,
    )
    fit_loop = SimpleNamespace(
        epoch_loop=epoch_loop,
        epoch_progress=SimpleNamespace(
            current=SimpleNamespace(started=started, processed=processed)
        ),
        restarted_on_epoch_end=restarted_on_epoch_end,
    )
    return SimpleNamespace(
        fit_loop=fit_loop,
        max_steps=max_steps,
        global_step=global_step,
        check_val_every_n_epoch=every_n_epochs,
        current_epoch=current_epoch,
        val_check_batch=val_check_batch,
        enable_validation=enable_validation,
        should_stop=should_stop,
        accumulate_grad_batches=accumulate,
        num_training_batches=num_training_batches,
    )


def test_at_last_batch() -> None:
    assert position.at_last_batch(trainer(last_batch=True))
    assert not position.at_last_batch(trainer())


def test_epoch_end_begun() -> None:
    assert position.epoch_end_begun(trainer(started=1, processed=1))
    assert not position.epoch_end_begun(trainer(started=1, processed=0))


@pytest.mark.parametrize(
    ("max_steps", "global_step", "reached"),
    [(-1, 100, False), (5, 4, False), (5, 5, True), (5, 6, True), (0, 0, True)],
)
def test_budget_reached(max_steps: int, global_step: int, reached: bool) -> None:
    assert position.budget_reached(trainer(max_steps=max_steps, global_step=global_step)) is reached


def test_budget_ends_epoch_early_only_before_the_last_batch() -> None:
    assert position.budget_ends_epoch_early(trainer(max_steps=3, global_step=3))
    at_last = trainer(max_steps=3, global_step=3, last_batch=True)
    assert not position.budget_ends_epoch_early(at_last)
    assert not position.budget_ends_epoch_early(trainer(max_steps=4, global_step=3))


@pytest.mark.parametrize(
    ("state", "follows"),
    [
        ({}, False),  # batch 3 of 4, validation at the epoch's end
        ({"batch_idx": 3, "last_batch": True}, True),
        ({"batch_idx": 3, "last_batch": True, "enable_validation": False}, False),
        # every 2 epochs: not after epoch 0, after epoch 1
        ({"batch_idx": 3, "last_batch": True, "every_n_epochs": 2}, False),
        ({"batch_idx": 3, "last_batch": True, "every_n_epochs": 2, "current_epoch": 1}, True),
        ({"should_stop": True}, True),  # early stopping validates first
        ({"should_stop": True, "every_n_epochs": 2}, False),
        ({"val_check_batch": 2, "batch_idx": 1}, True),  # every 2 batches
        ({"val_check_batch": 2, "batch_idx": 2}, False),
        # every N batches across epochs (check_val_every_n_epoch None): the total count
        ({"val_check_batch": 3, "every_n_epochs": None, "total_batch_idx": 5}, True),
        ({"val_check_batch": 3, "every_n_epochs": None, "total_batch_idx": 4}, False),
        ({"val_check_batch": INF}, False),  # a loader without a length: at its end only
        ({"val_check_batch": INF, "last_batch": True}, True),
        ({"val_check_batch": None, "batch_idx": 3, "last_batch": True}, False),  # a duration
    ],
)
def test_validation_follows(state: dict[str, Any], follows: bool) -> None:
    batch_idx = state.get("batch_idx", 2)
    assert position.validation_follows(trainer(**state), batch_idx) is follows


def test_validated_epoch_end_needs_the_end_begun_and_the_validation() -> None:
    end = {"last_batch": True, "processed": 1, "batch_idx": 3}
    assert position.validated_epoch_end(trainer(**end))
    assert not position.validated_epoch_end(trainer(**end, every_n_epochs=2))
    assert not position.validated_epoch_end(trainer(**{**end, "processed": 0}))
    assert not position.validated_epoch_end(trainer(processed=1, batch_idx=1, val_check_batch=2))


def test_served_at_epoch_end_after_the_last_batch_or_before_a_validation() -> None:
    assert position.served_at_epoch_end(trainer(last_batch=True, enable_validation=False), 3)
    assert position.served_at_epoch_end(trainer(val_check_batch=2, batch_idx=1), 1)
    assert not position.served_at_epoch_end(trainer(), 2)


def test_served_at_validation_end_inside_the_epoch_only() -> None:
    assert position.served_at_validation_end(trainer())
    assert not position.served_at_validation_end(trainer(last_batch=True))


def test_served_at_validation_end_after_a_steps_last_batch_only() -> None:
    assert not position.served_at_validation_end(trainer(accumulate=2, batch_idx=2))
    assert position.served_at_validation_end(trainer(accumulate=2, batch_idx=1))


@pytest.mark.parametrize(
    ("state", "unfinished"),
    [
        ({}, False),  # a step every batch
        ({"accumulate": 2, "batch_idx": 0}, True),  # the first batch of a step of 2
        ({"accumulate": 2, "batch_idx": 1}, False),
        ({"accumulate": 3, "batch_idx": 4}, True),
        ({"accumulate": 3, "batch_idx": 5}, False),
        ({"accumulate": 2, "batch_idx": 2, "last_batch": True}, False),  # the epoch's last steps
        ({"accumulate": 2, "batch_idx": 2, "num_training_batches": 3}, False),
        ({"accumulate": 2, "batch_idx": 2, "num_training_batches": INF}, True),
    ],
)
def test_step_unfinished(state: dict, unfinished: bool) -> None:
    """Whether the batch just run leaves gradients accumulated for a step whose batches remain."""
    assert position.step_unfinished(trainer(**state)) is unfinished


def test_batches_remain() -> None:
    assert position.batches_remain(trainer())
    assert not position.batches_remain(trainer(last_batch=True))
    assert not position.batches_remain(trainer(processed=1))


@pytest.mark.parametrize(
    ("state", "skipped"),
    [
        ({}, False),  # batches remain
        ({"last_batch": True}, True),
        ({"max_steps": 3, "global_step": 3}, True),  # the budget ends the epoch early
        ({"last_batch": True, "processed": 1}, False),  # in the epoch's end
    ],
)
def test_epoch_end_skipped_on_resume(state: dict[str, Any], skipped: bool) -> None:
    assert position.epoch_end_skipped_on_resume(trainer(**state)) is skipped


def test_replayed_epoch_end() -> None:
    assert position.replayed_epoch_end(trainer(restarted_on_epoch_end=True))
    assert not position.replayed_epoch_end(trainer())


def loops(started: int, processed: int, completed: int, last_batch: bool) -> dict[str, Any]:
    """The parts of a checkpoint's ``loops["fit_loop"]`` the saved-state predicates read."""
    counts = {"ready": started, "started": started, "processed": processed}
    return {
        "epoch_progress": {"current": {**counts, "completed": completed}},
        "epoch_loop.batch_progress": {"is_last_batch": last_batch},
    }


@pytest.mark.parametrize(
    ("saved", "at_end", "inside"),
    [
        (loops(2, 1, 1, last_batch=False), False, True),  # inside epoch 1
        (loops(2, 1, 1, last_batch=True), False, True),  # its last batch run, end not begun
        (loops(2, 2, 1, last_batch=True), True, False),  # in epoch 1's end
        (loops(2, 2, 2, last_batch=True), False, False),  # epoch 1 completed
        (loops(2, 2, 1, last_batch=False), False, False),  # ended early (a budget or a stop)
    ],
)
def test_saved_positions(saved: dict[str, Any], at_end: bool, inside: bool) -> None:
    assert position.saved_at_epoch_end(saved) is at_end
    assert position.saved_inside_epoch(saved) is inside


@pytest.mark.parametrize(
    ("max_steps", "reached"), [(-1, False), (6, True), (5, True), (7, False), (0, True)]
)
def test_saved_budget_reached(max_steps: int, reached: bool) -> None:
    assert position.saved_budget_reached({"global_step": 6}, max_steps) is reached
