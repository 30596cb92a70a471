"""Fit the toy task with two CPU DDP processes (gloo); rank 0 writes ``OUT/ddp.json``.

Run as ``python -m tests.harness.training_ddp_script OUT``; Lightning's ``ddp`` strategy
re-executes this command for rank 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import lightning.pytorch as pl

from harness.training.run import build_module, fit_datamodule, resolve_config
from tests.harness.training_toy import ToyDataModule

DDP = {"accelerator": "cpu", "devices": 2, "strategy": "ddp", "max_epochs": 2, "dropout": 0.0}
SMALL = {"hidden_dim": 6, "head_hidden": 12, "lr": 0.02}


def toy_module(config: dict, datamodule: ToyDataModule) -> pl.LightningModule:
    return build_module(config, "multi_cnn", datamodule.embedding_matrix, "single", 2)


def main(out: Path) -> None:
    pl.seed_everything(0, workers=True)
    datamodule = ToyDataModule("single")
    config = resolve_config("trec", "multi_cnn", {**SMALL, **DDP})
    metrics, trainer = fit_datamodule(datamodule, toy_module(config, datamodule), config, out)
    if trainer.is_global_zero:
        (out / "ddp.json").write_text(json.dumps({**metrics, "world": trainer.world_size}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
