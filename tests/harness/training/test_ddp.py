"""Two CPU DDP processes (gloo): torchmetrics-synchronised metrics equal a one-process run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import lightning.pytorch as pl
import pytest

from tests.harness.fixtures.training_ddp_script import fixture_datamodule, toy_module

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_ddp_metrics_equal_single_process_evaluation(tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tests.harness.fixtures.training_ddp_script", str(tmp_path)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    ddp = json.loads((tmp_path / "ddp.json").read_text())
    assert ddp["world"] == 2 and ddp["steps"] == 2 * 2  # 2 epochs x (3 batches topped up to 4) / 2

    datamodule = fixture_datamodule()
    module = toy_module(datamodule)
    trainer = pl.Trainer(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False)
    best = tmp_path / "checkpoints" / ddp["best_checkpoint"]
    single = trainer.test(module, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    dev = trainer.validate(module, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    assert ddp["test_acc"] == pytest.approx(single["test_acc"])
    assert ddp["dev_acc"] == pytest.approx(dev["val_acc"])
    assert ddp["test_loss"] == pytest.approx(single["test_loss"], rel=1e-5)


@pytest.mark.slow
def test_a_ddp_fit_prints_its_metrics_and_warnings_once(trec_dir: Path, tmp_path: Path) -> None:
    """``sanbench fit --trainer.strategy ddp``: every process runs the command; one prints."""
    command = [
        sys.executable, "-m", "harness.cli", "fit", "--task", "trec", "--encoder", "multi_cnn",
        "--data-dir", str(trec_dir), "--out", str(tmp_path / "run"),
        "--trainer.strategy", "ddp", "--trainer.devices", "2", "--trainer.accelerator", "cpu",
        "--trainer.max_epochs", "1", "--model.hidden_dim", "8",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count('"test_acc"') == 1
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == len(set(warnings)) >= 1  # the random-vectors warning, once
    assert "distributed" not in result.stderr and "sync_dist" not in result.stderr
