"""What a fit leaves for its reader: training-time validations only in the logs, the dev metric
on the terminal's bar (``--trainer.fast_dev_run`` is refused: test_config_checks)."""

from __future__ import annotations

import csv
from pathlib import Path

import lightning.pytorch as pl
import pytest

from harness.training.fit import run_fit
from harness.training.settings.fit_run import FitRun

SMALL = {"model.hidden_dim": 4, "model.head_hidden": 8}


class BarMetrics(pl.Callback):
    """The progress bar's metrics at the end of each training epoch."""

    def __init__(self) -> None:
        self.seen: list[set[str]] = []

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self.seen.append(set(trainer.progress_bar_metrics))


@pytest.mark.slow
def test_logs_hold_one_validation_per_epoch_and_the_bar_shows_val_acc(
    trec_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    bar = BarMetrics()
    overrides = {**SMALL, "trainer.max_epochs": 2, "trainer.enable_progress_bar": True}
    metrics = run_fit(FitRun("trec", "multi_cnn", trec_dir, out, overrides=overrides), [bar])
    with (out / "logs" / "version_0" / "metrics.csv").open() as handle:
        rows = [row for row in csv.DictReader(handle) if row.get("val_acc")]
    assert [int(row["epoch"]) for row in rows] == [0, 1]  # no extra point for the best weights
    assert metrics["dev_acc"] is not None
    assert all("val_acc" in seen for seen in bar.seen)
