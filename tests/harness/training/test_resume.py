"""Exact resume: a run interrupted anywhere and resumed trains on the same batches, in the same
order, as an uninterrupted one (same final weights, same step count), and times each epoch."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import lightning.pytorch as pl
import pytest
import torch

from datamodules.datamodule import BenchmarkDataModule
from harness.errors import RunInterruptedError
from harness.training.callbacks import trainer_arguments
from harness.training.efficiency import EfficiencyCallback
from harness.training.fit_cli import TRAINER_DEFAULTS
from harness.training.interrupt import StopOnSignal, stop_on_signals
from harness.training.module import TaskModule
from harness.training.run_options import RunOptions

BATCH = 8  # 108 training examples of the tiny TREC files: 14 batches an epoch


class KilledError(Exception):
    """What a kill leaves: the run ends at once, after its last checkpoint."""


class Interrupt(pl.Callback):
    """Stops the run like a kill: before step ``step`` or at the start of epoch ``epoch``."""

    def __init__(self, step: int | None = None, epoch: int | None = None) -> None:
        self.step, self.epoch = step, epoch

    def on_train_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.global_step == self.step:
            raise KilledError

    def on_train_epoch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.current_epoch == self.epoch:
            raise KilledError


def _fit(trec_dir: Path, out: Path, budget: dict, every_n_steps: int | None, stop=None):
    """One (re)start of a dropout-0 Multi-CNN on the tiny TREC files, resuming from last.ckpt."""
    pl.seed_everything(0)
    datamodule = BenchmarkDataModule(
        "trec", trec_dir, trec_dir / "glove.txt", batch_size=BATCH, seed=0
    )
    datamodule.setup("fit")
    vocab, dim = datamodule.embedding_matrix.shape
    module = TaskModule(
        "multi_cnn", "single", 6, vocab, dim, encoder_options={"hidden_dim": 4},
        head_hidden=8, dropout=0.0,
    )  # fmt: skip
    module.set_embeddings(datamodule.embedding_matrix)
    run = RunOptions(checkpoint_every_n_steps=every_n_steps)
    extra = trainer_arguments(run, out, "single", progress_bar=False)
    extra["callbacks"] += [stop] if stop else []
    trainer = pl.Trainer(**{**TRAINER_DEFAULTS, **budget, **extra})
    last = out / "checkpoints" / "last.ckpt"
    stopper = next(c for c in trainer.callbacks if isinstance(c, StopOnSignal))
    with stop_on_signals(stopper):
        trainer.fit(module, datamodule=datamodule, ckpt_path=last if last.exists() else None)
    return module, trainer


BUDGETS = {
    "epochs": {"max_epochs": 3},
    "steps": {"max_steps": 33, "max_epochs": -1},  # ends inside epoch 2
}


@pytest.mark.slow  # 9 short fits
@pytest.mark.parametrize("budget", sorted(BUDGETS))
def test_a_resumed_run_ends_with_the_weights_of_an_uninterrupted_one(
    trec_dir: Path, tmp_path: Path, budget: str
) -> None:
    reference, reference_trainer = _fit(trec_dir, tmp_path / "whole", BUDGETS[budget], None)
    interruptions = {
        "mid_epoch": (Interrupt(step=19), 1),  # the periodic checkpoint of step 19, epoch 1
        "epoch_boundary": (Interrupt(epoch=2), None),  # the end-of-epoch checkpoint of epoch 1
    }
    for name, (stop, every_n_steps) in interruptions.items():
        out = tmp_path / name
        with pytest.raises(KilledError):
            _fit(trec_dir, out, BUDGETS[budget], every_n_steps, stop)
        resumed, trainer = _fit(trec_dir, out, BUDGETS[budget], every_n_steps)
        assert trainer.global_step == reference_trainer.global_step, name
        assert trainer.current_epoch == reference_trainer.current_epoch, name
        for key, value in reference.state_dict().items():
            assert torch.equal(resumed.state_dict()[key], value), (name, key)


class LateSigterm(pl.Callback):
    """Sends SIGTERM from a hook that runs after :class:`StopOnSignal`'s check, so Lightning's
    own check sees it first (the race a ``kill`` can land in)."""

    def __init__(self, hook: str, when: int) -> None:
        self.hook = hook
        self.when: int | None = when  # a global step or an epoch; None once sent

    def _kill_if(self, hook: str, counter: int) -> None:
        if hook == self.hook and counter == self.when:
            self.when = None  # once: a second SIGTERM would get the default handler
            os.kill(os.getpid(), signal.SIGTERM)

    def on_train_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        self._kill_if("on_train_batch_end", trainer.global_step)

    def on_train_epoch_end(self, trainer: pl.Trainer, *args: object) -> None:
        self._kill_if("on_train_epoch_end", trainer.current_epoch)

    def on_validation_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        self._kill_if("on_validation_batch_end", trainer.current_epoch)


@pytest.mark.slow  # 7 short fits
@pytest.mark.parametrize(
    ("hook", "when"),
    [
        ("on_train_batch_end", 19),  # Lightning's check after the batch: mid-epoch 1
        ("on_train_batch_end", 28),  # the last batch of epoch 1, after its validation
        ("on_validation_batch_end", 1),  # after the first dev batch of epoch 1's validation
        ("on_train_epoch_end", 1),  # Lightning's check after epoch 1's hooks
    ],
)
def test_a_sigterm_that_lightning_sees_first_is_saved_and_resumed_exactly(
    trec_dir: Path, tmp_path: Path, hook: str, when: int
) -> None:
    reference, reference_trainer = _fit(trec_dir, tmp_path / "whole", BUDGETS["epochs"], None)
    out = tmp_path / "stopped"
    with pytest.raises(RunInterruptedError) as stopped:
        _fit(trec_dir, out, BUDGETS["epochs"], None, LateSigterm(hook, when))
    assert stopped.value.exit_status == 143
    assert "saved" in str(stopped.value) and (out / "checkpoints" / "last.ckpt").exists()
    resumed, trainer = _fit(trec_dir, out, BUDGETS["epochs"], None)
    assert trainer.global_step == reference_trainer.global_step
    assert trainer.current_epoch == reference_trainer.current_epoch
    for key, value in reference.state_dict().items():
        assert torch.equal(resumed.state_dict()[key], value), key


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def test_the_epoch_resumed_mid_way_is_timed_as_that_epoch_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import harness.training.efficiency as efficiency

    clock = FakeClock()
    monkeypatch.setattr(efficiency, "time", clock)
    trainer, module = object(), pl.LightningModule()
    before = EfficiencyCallback()
    before.on_train_start(trainer, module)
    for _epoch in range(2):  # two whole epochs of 10 s each
        before.on_train_epoch_start(trainer, module)
        clock.now += 10.0
        before.on_train_epoch_end(trainer, module)
    before.on_train_epoch_start(trainer, module)
    clock.now += 4.0  # 4 s into epoch 2, a checkpoint, then a kill
    saved = before.state_dict()
    clock.now += 100.0  # the restart
    after = EfficiencyCallback()
    after.load_state_dict(saved)
    after.on_train_start(trainer, module)  # Lightning resumes epoch 2 without starting it
    clock.now += 6.0
    after.on_train_epoch_end(trainer, module)
    assert after.epoch_seconds == [10.0, 10.0, 10.0]
    assert after.train_seconds == 30.0
