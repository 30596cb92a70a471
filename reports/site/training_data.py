"""Reading training results: a suite's ``results-K-of-N.csv`` shards and per-run folders.

A run folder (``sanbench fit`` or one suite run) holds ``metrics.json``, ``curve.csv`` (one
row per validation with ``train_seconds``) and ``test_predictions.csv`` (index, length, label,
prediction per test example).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

RESULTS_GLOB = "results-*-of-*.csv"
KEY = ["task", "encoder", "replicate"]
NUMERIC = (
    "params",
    "train_time_per_epoch_s",
    "peak_train_mem_mb",
    "dev_infer_time_s",
    "train_acc",
    "dev_acc",
    "test_acc",
    "dev_pearson",
    "test_pearson",
    "test_spearman",
    "test_mse",
)


def _read_csv(path: Path, required: tuple[str, ...]) -> pd.DataFrame:
    """The file's complete lines (a suite still running may be writing its last one)."""
    data = path.read_bytes()
    frame = pd.read_csv(io.BytesIO(data[: data.rfind(b"\n") + 1]))
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}, line 1: header lacks columns {missing}; expected at least "
            f"{', '.join(required)} (the file sanbench wrote)"
        )
    return frame


def load_suite_results(folder: Path) -> pd.DataFrame:
    """Finished runs of every shard (the last ``ok`` row per task, encoder, replicate)."""
    paths = sorted(Path(folder).glob(RESULTS_GLOB))
    if not paths:
        raise FileNotFoundError(
            f"{folder}: no {RESULTS_GLOB}; pass the --out folder of `sanbench suite`"
        )
    frames = [_read_csv(path, (*KEY, "status", "run_dir")) for path in paths]
    rows = pd.concat(frames, ignore_index=True)
    ok = rows[rows["status"] == "ok"].drop_duplicates(KEY, keep="last").reset_index(drop=True)
    for column in NUMERIC:
        if column in ok:
            ok[column] = pd.to_numeric(ok[column], errors="coerce")
    return ok


def load_fit_result(folder: Path) -> tuple[pd.DataFrame, dict]:
    """One ``sanbench fit`` run as a one-row results table, and its ``metrics.json``."""
    path = Path(folder) / "metrics.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: the fit run has not finished")
    metrics = json.loads(path.read_text())
    fold, seed = metrics.get("fold"), metrics.get("seed")
    replicate = f"fold{fold}" if fold is not None else f"seed{seed}"
    row = {k: v for k, v in metrics.items() if not isinstance(v, dict)}
    row.update(replicate=replicate, run_dir=".")
    return pd.DataFrame([row]), metrics


def read_run_file(folder: Path, results: pd.DataFrame, name: str) -> dict[tuple, pd.DataFrame]:
    """``name`` (curve.csv, test_predictions.csv) of each finished run that has it."""
    found = {}
    for row in results.itertuples(index=False):
        path = Path(folder) / str(row.run_dir) / name
        if path.is_file():
            frame = pd.read_csv(path)
            if not frame.empty:
                found[(row.task, row.encoder, row.replicate)] = frame
    return found


def first_metrics(folder: Path, results: pd.DataFrame) -> dict:
    """``metrics.json`` of the first finished run (its versions and config), or {}."""
    for run_dir in results["run_dir"]:
        path = Path(folder) / str(run_dir) / "metrics.json"
        if path.is_file():
            return json.loads(path.read_text())
    return {}
