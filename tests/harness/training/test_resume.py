"""Exact resume: a run interrupted anywhere and resumed trains on the same batches, in the same
order, as an uninterrupted one (same final weights, same step count), and times each epoch."""

from __future__ import annotations

from pathlib import Path

import lightning.pytorch as pl
import pytest
import torch

from datamodules.datamodule import BenchmarkDataModule
from harness.training.callbacks import trainer_arguments
from harness.training.efficiency import EfficiencyCallback
from harness.training.fit_cli import TRAINER_DEFAULTS
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
