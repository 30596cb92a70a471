"""Reading training results for the pages: a suite's finished rows and its per-run folders, or
one ``sanbench fit`` folder, through ``reports.contracts``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from reports.contracts.fit_folder import FitRunFolder, replicate_label
from reports.contracts.suite_results import (
    CONTENDED_COLUMNS,
    EVIDENCE,
    TIMED_PREFIXES,
    failed_rows,
    finished_rows,
)

ERROR_FILE = "error.txt"  # the traceback a suite writes into a failed run's folder


def load_suite_results(folder: Path) -> pd.DataFrame:
    """Finished runs of every shard (the last ``ok`` row per task, encoder, replicate), with
    the evidence behind each contended time (:func:`with_evidence`)."""
    return with_evidence(Path(folder), finished_rows(folder))


def failed_runs(folder: Path) -> list[list[str]]:
    """Task, encoder, replicate and why, one row per run of the suite at ``folder`` that failed
    and has not finished since: the error its results row records, else the last line of the
    traceback in its folder's ``error.txt``."""
    found = []
    for row in failed_rows(folder).to_dict("records"):
        error = "" if pd.isna(row.get("error")) else str(row.get("error")).strip()
        traceback = folder / str(row.get("run_dir") or "") / ERROR_FILE
        if not error and traceback.is_file():
            lines = [line for line in traceback.read_text(errors="replace").splitlines() if line]
            error = lines[-1].strip() if lines else ""
        found.append([row["task"], row["encoder"], row["replicate"], error or "not recorded"])
    return found


def with_evidence(folder: Path, results: pd.DataFrame) -> pd.DataFrame:
    """``results`` with the CPU share and load averages of each contended timing that its row
    lacks (a results file written before they were columns) taken from the run's
    ``metrics.json``, where every run records them."""
    results = results.copy()
    for time_column, prefix in TIMED_PREFIXES.items():
        flag = CONTENDED_COLUMNS[time_column]
        columns = [prefix + name for name in EVIDENCE]
        for column in columns:
            if column not in results:
                results[column] = float("nan")
        if flag not in results:
            continue
        contended = pd.to_numeric(results[flag], errors="coerce").fillna(0) > 0
        lacking = contended & results[columns].isna().any(axis=1)
        for index in results.index[lacking]:
            run = FitRunFolder(folder / str(results.at[index, "run_dir"]))
            metrics = run.read_metrics() if run.finished() else {}
            for column in columns:
                if pd.isna(results.at[index, column]) and metrics.get(column) is not None:
                    results.at[index, column] = float(metrics[column])
    return results


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
