"""A fit run folder: metrics and curve written and read back, replicate labels."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from reports.contracts.fit_folder import CURVE_KEYS, FitRunFolder, replicate_label


def test_metrics_round_trip_and_mark_the_run_finished(tmp_path: Path) -> None:
    run = FitRunFolder(tmp_path)
    assert not run.finished()
    with pytest.raises(FileNotFoundError, match="has not finished"):
        run.read_metrics()
    metrics = {"task": "trec", "test_acc": 0.9, "fold": None, "config": {"seed": 1}, "p": Path("x")}
    run.write_metrics(metrics)
    assert run.finished()
    assert run.read_metrics() == {**metrics, "p": "x"}  # paths are written as text


def test_curve_columns_are_the_keys_then_the_sorted_validation_metrics(tmp_path: Path) -> None:
    run = FitRunFolder(tmp_path)
    assert run.read_curve().empty  # not written yet
    rows = [
        {"epoch": 0, "step": 10, "train_seconds": 1.5, "val_loss": 0.7, "val_acc": 0.5, "x": 1},
        {"epoch": 1, "step": 20, "train_seconds": 3.0, "val_loss": 0.6, "val_acc": 0.6, "x": 2},
    ]
    run.write_curve(rows)
    curve = run.read_curve()
    assert list(curve.columns) == [*CURVE_KEYS, "val_acc", "val_loss"]
    assert curve["val_acc"].tolist() == [0.5, 0.6] and math.isclose(curve["train_seconds"][1], 3)


def test_an_empty_predictions_file_reads_as_no_rows(tmp_path: Path) -> None:
    run = FitRunFolder(tmp_path)
    run.predictions.write_text("")
    assert run.read_predictions().empty


def test_replicate_labels() -> None:
    assert replicate_label(seed=3, fold=None) == "seed3"
    assert replicate_label(seed=0, fold=7) == "fold7"
