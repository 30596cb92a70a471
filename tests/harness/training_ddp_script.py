"""Fit SST-2 fixtures (the real datamodule) with two CPU DDP processes (gloo); rank 0 writes
``OUT/ddp.json``.

Run as ``python -m tests.harness.training_ddp_script OUT``; Lightning's ``ddp`` strategy
re-executes this command for rank 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import lightning.pytorch as pl

from datamodules import build_datamodule
from datamodules.datamodule import BenchmarkDataModule
from harness.training.callbacks import trainer_arguments
from harness.training.fit_cli import TRAINER_DEFAULTS
from harness.training.run import fit_datamodule
from harness.training.run_options import RunOptions
from harness.training.task_model import task_model

FIXTURES = Path(__file__).resolve().parents[1] / "datamodules" / "fixtures" / "kim2014"

DDP = {"accelerator": "cpu", "devices": 2, "strategy": "ddp", "max_epochs": 2}
SMALL = {"hidden_dim": 6, "head_hidden": 12, "lr": 0.02, "optimizer": "adam", "dropout": 0.0}


def fixture_datamodule() -> BenchmarkDataModule:
    """12 training sentences in batches of 4: 3 batches, topped up to 2 per rank."""
    datamodule = build_datamodule("sst2", data_dir=FIXTURES, batch_size=4, embedding_dim=8)
    datamodule.setup("fit")
    return datamodule


def toy_module(datamodule: BenchmarkDataModule) -> pl.LightningModule:
    return task_model("multi_cnn", data=datamodule, **SMALL)


def main(out: Path) -> None:
    pl.seed_everything(0, workers=True)
    datamodule = fixture_datamodule()
    extra = trainer_arguments(RunOptions(), out, "single", progress_bar=False)
    trainer = pl.Trainer(**{**TRAINER_DEFAULTS, **DDP, **extra})
    metrics = fit_datamodule(datamodule, toy_module(datamodule), trainer, out)
    if trainer.is_global_zero:
        (out / "ddp.json").write_text(json.dumps({**metrics, "world": trainer.world_size}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
