"""A run whose optimizer steps accumulate gradients over 2 batches, stopped at any batch and
resumed, ends as the uninterrupted run: the same final and best weights and metrics.json (#54:
a Ctrl-C inside a step was served at once and that step's accumulated gradient lost, so the
resume stepped on the step's second batch alone: dev_loss 1.7282 for 1.7203, other weights).

A signal at the start of every batch (SIGINT and SIGTERM by turns) and inside a validation that
falls inside a step; a hard kill at a step's second batch after a periodic save (every so
many minutes) fell due at its first (such a save waits for the step's last batch too)."""

from __future__ import annotations

import math
import signal
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import pytest
import torch

from harness.errors import RunInterruptedError
from harness.training.fit import run_fit
from harness.training.trainer_setup import PeriodicCheckpoint
from tests.harness.training.test_fit import tiny_run
from tests.harness.training.test_resume import AskToStop, KilledError
from tests.harness.training.test_resumed_metrics import COMMON, _comparable

# name: (fit options, its batches); 4 batches of 16 an epoch, 2 a step, unless said
BUDGETS: dict[str, tuple[dict[str, Any], int]] = {
    # the outside check's run (issue 54): validation every 2 epochs, a save every 3 steps
    "every_3_steps": (
        {"trainer__max_epochs": 3, "trainer__check_val_every_n_epoch": 2,
         "run__checkpoint_every_n_steps": 3},
        12,
    ),
    # 6-batch epochs validated after batches 3 and 6: the first inside a step
    "validation_inside_a_step": (
        {"trainer__max_epochs": 2, "trainer__limit_train_batches": 6,
         "trainer__val_check_interval": 3},
        12,
    ),
    # a periodic save every hour: due when a test says (KillAfterDueSave)
    "every_hour": ({"trainer__max_epochs": 2, "run__checkpoint_every_minutes": 60}, 8),
}  # fmt: skip
ACCUMULATE = {"trainer__accumulate_grad_batches": 2}


def _batch(trainer: pl.Trainer) -> int:
    """The index of the training batch starting (``on_train_batch_start``), over the fit."""
    return trainer.fit_loop.epoch_loop.total_batch_idx


class AtBatch(pl.Callback):
    """Sends ``signum`` to this process at the start of training batch ``batch``."""

    def __init__(self, batch: int, signum: signal.Signals) -> None:
        self.batch, self.signum, self.sent = batch, signum, False

    def on_train_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if _batch(trainer) == self.batch and not self.sent:
            self.sent = True
            signal.raise_signal(self.signum)


class KillAfterDueSave(pl.Callback):
    """A periodic save falls due (its clock says the time is up) at the start of training batch
    ``batch`` - 1; the run stops like a hard kill at the start of ``batch``."""

    def __init__(self, batch: int) -> None:
        self.batch = batch

    def on_train_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if _batch(trainer) == self.batch - 1:
            periodic = next(c for c in trainer.callbacks if isinstance(c, PeriodicCheckpoint))
            periodic._last_time_checked = -math.inf  # Lightning's clock of the last save
        elif _batch(trainer) == self.batch:
            raise KilledError


def _moments() -> list:
    moments = [
        pytest.param(budget, AtBatch(batch, (signal.SIGINT, signal.SIGTERM)[batch % 2]),
                     id=f"{budget}-batch{batch}")
        for budget in ("every_3_steps", "validation_inside_a_step")
        for batch in range(BUDGETS[budget][1])
    ]  # fmt: skip
    # inside the validation after batch 3 (index 2), the first batch of a step of 2
    inside = AskToStop("validation", 1, signal.SIGINT)
    moments.append(pytest.param("validation_inside_a_step", inside, id="validation_in_a_step"))
    moments += [  # the second batch of each step after the first
        pytest.param("every_hour", KillAfterDueSave(batch), id=f"every_hour-kill{batch}")
        for batch in range(3, BUDGETS["every_hour"][1], 2)
    ]
    return moments


def _weights(out: Path, metrics: dict[str, Any]) -> dict[str, dict[str, torch.Tensor]]:
    """The final (last.ckpt) and the scored (best-on-dev) weights of a run."""
    checkpoints = out / "checkpoints"
    return {
        name: torch.load(checkpoints / name, weights_only=True)["state_dict"]
        for name in ("last.ckpt", metrics["best_checkpoint"])
    }


@pytest.fixture(scope="module")
def uninterrupted(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """metrics.json and the weights of each budget's uninterrupted run, once per process."""
    runs: dict[str, tuple[dict[str, Any], dict]] = {}

    def run(budget: str) -> tuple[dict[str, Any], dict]:
        if budget not in runs:
            out = tmp_path_factory.mktemp(budget)
            metrics = run_fit(tiny_run(trec_dir, out, **(COMMON | ACCUMULATE | BUDGETS[budget][0])))
            runs[budget] = metrics, _weights(out, metrics)
        return runs[budget]

    return run


@pytest.mark.slow  # 2 tiny fits each, and the budget's uninterrupted one once per process
@pytest.mark.parametrize(("budget", "stop"), _moments())
def test_a_run_accumulating_gradients_stopped_at_any_batch_resumes_as_the_uninterrupted_run(
    trec_dir: Path, tmp_path: Path, uninterrupted, budget: str, stop: pl.Callback
) -> None:
    out = tmp_path / "stopped"
    run = tiny_run(trec_dir, out, **(COMMON | ACCUMULATE | BUDGETS[budget][0]))
    with pytest.raises(KilledError if budget == "every_hour" else RunInterruptedError):
        run_fit(run, callbacks=[stop])
    resumed = run_fit(run)
    metrics, weights = uninterrupted(budget)
    assert _comparable(resumed) == _comparable(metrics)
    for name, state in _weights(out, resumed).items():
        for key, value in weights[name].items():
            assert torch.equal(state[key], value), (name, key)
