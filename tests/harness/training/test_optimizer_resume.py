"""Exact resume with an optimizer and a scheduler given by class path (``--optimizer
torch.optim.SGD --optimizer.momentum 0.9 --lr_scheduler torch.optim.lr_scheduler.StepLR``,
issue 56.14): a run killed mid-epoch and resumed ends with the same weights, momentum buffers and
learning rate as an uninterrupted one, as ``test_resume.py`` checks for the papers' optimizers."""

from __future__ import annotations

from pathlib import Path

import lightning.pytorch as pl
import pytest
import torch

from datamodules.datamodule import BenchmarkDataModule
from harness.training.module import TaskModule
from harness.training.settings.fit_cli import TRAINER_DEFAULTS
from harness.training.settings.run_options import RunOptions
from harness.training.trainer_setup import trainer_arguments
from tests.harness.training.test_resume import BATCH, DROPOUT, Interrupt, KilledError

SGD = {"class_path": "torch.optim.SGD", "init_args": {"lr": 0.05, "momentum": 0.9}}
STEP_LR = {"class_path": "torch.optim.lr_scheduler.StepLR", "init_args": {"step_size": 1}}
BUDGET = {"max_epochs": 3}  # 14 batches an epoch: the kill lands at step 22, mid epoch 1
RUN = RunOptions(checkpoint_every_n_steps=5)


def _fit(trec_dir: Path, out: Path, stop: pl.Callback | None = None) -> tuple:
    """One (re)start of a small Multi-CNN with dropout under SGD + StepLR, from last.ckpt."""
    pl.seed_everything(0)
    datamodule = BenchmarkDataModule(
        "trec", trec_dir, trec_dir / "glove.txt", batch_size=BATCH, seed=0
    )
    datamodule.setup("fit")
    vocab, dim = datamodule.embedding_matrix.shape
    module = TaskModule(
        "multi_cnn", "single", 6, vocab, dim, encoder_options={"hidden_dim": 4},
        head_hidden=8, dropout=DROPOUT, optimizer_init=SGD, lr_scheduler_init=STEP_LR,
    )  # fmt: skip
    module.set_embeddings(datamodule.embedding_matrix)
    extra = trainer_arguments(RUN, out, "single", progress_bar=False)
    extra["callbacks"] += [stop] if stop else []
    trainer = pl.Trainer(**{**TRAINER_DEFAULTS, **BUDGET, **extra})
    last = out / "checkpoints" / "last.ckpt"
    trainer.fit(module, datamodule=datamodule, ckpt_path=last if last.exists() else None)
    return module, trainer


@pytest.mark.slow  # 3 short fits
def test_sgd_momentum_and_step_lr_resumed_mid_epoch_end_as_the_uninterrupted_run(
    trec_dir: Path, tmp_path: Path
) -> None:
    reference_module, reference = _fit(trec_dir, tmp_path / "whole")
    with pytest.raises(KilledError):
        _fit(trec_dir, tmp_path / "killed", Interrupt(step=22))
    module, resumed = _fit(trec_dir, tmp_path / "killed")
    assert resumed.global_step == reference.global_step == 42
    [optimizer], [scheduler] = resumed.optimizers, resumed.lr_scheduler_configs
    [reference_optimizer] = reference.optimizers
    assert isinstance(optimizer, torch.optim.SGD)
    lrs = [group["lr"] for group in optimizer.param_groups]
    assert lrs == [group["lr"] for group in reference_optimizer.param_groups]
    assert lrs[0] == pytest.approx(0.05 * 0.1**3)  # StepLR stepped at each of 3 epochs' ends
    assert scheduler.scheduler.last_epoch == 3
    for key, value in reference_module.state_dict().items():
        assert torch.equal(module.state_dict()[key], value), key
    for param, reference_param in zip(
        module.parameters(), reference_module.parameters(), strict=True
    ):
        momentum = optimizer.state[param].get("momentum_buffer")
        expected = reference_optimizer.state[reference_param].get("momentum_buffer")
        assert (momentum is None) == (expected is None)
        assert momentum is None or torch.equal(momentum, expected)
