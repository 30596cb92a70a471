"""Reading training results for the pages: a suite's finished rows and its per-run folders, or
one ``sanbench fit`` folder, through ``reports.contracts``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from reports.contracts.fit_folder import FitRunFolder, replicate_label
from reports.contracts.suite_results import finished_rows


def load_suite_results(folder: Path) -> pd.DataFrame:
    """Finished runs of every shard (the last ``ok`` row per task, encoder, replicate)."""
    return finished_rows(folder)


def load_fit_result(folder: Path) -> tuple[pd.DataFrame, dict]:
    """One ``sanbench fit`` run as a one-row results table, and its metrics."""
    metrics = FitRunFolder(Path(folder)).read_metrics()
    row = {k: v for k, v in metrics.items() if not isinstance(v, dict)}
    row.update(replicate=replicate_label(metrics.get("seed"), metrics.get("fold")), run_dir=".")
    return pd.DataFrame([row]), metrics


def read_run_file(
    folder: Path, results: pd.DataFrame, read: Callable[[FitRunFolder], pd.DataFrame]
) -> dict[tuple, pd.DataFrame]:
    """``read(run)`` (``FitRunFolder.read_curve``, ``read_predictions``) of each finished run
    whose file has rows."""
    found = {}
    for row in results.itertuples(index=False):
        frame = read(FitRunFolder(Path(folder) / str(row.run_dir)))
        if not frame.empty:
            found[(row.task, row.encoder, row.replicate)] = frame
    return found


def first_metrics(folder: Path, results: pd.DataFrame) -> dict:
    """Metrics of the first finished run (its versions and config), or {}."""
    for run_dir in results["run_dir"]:
        run = FitRunFolder(Path(folder) / str(run_dir))
        if run.finished():
            return run.read_metrics()
    return {}
