"""Reading a profile run folder: ``profile.csv`` (one row per encoder, length, mode) + manifest."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

CSV_NAME = "profile.csv"
MANIFEST = "manifest.json"
REQUIRED = (
    "encoder",
    "seq_len",
    "batch_size",
    "dim",
    "mode",
    "device",
    "dtype",
    "status",
    "time_ms_median",
    "time_ms_iqr",
    "peak_mem_mb",
    "params",
    "flops",
)
NUMERIC = ("seq_len", "time_ms_median", "time_ms_iqr", "peak_mem_mb", "params", "flops")


@dataclass(frozen=True)
class ProfileRun:
    folder: Path
    rows: pd.DataFrame
    manifest: dict[str, Any]


def load_run(folder: Path) -> ProfileRun:
    """Read and check ``folder/profile.csv`` and ``folder/manifest.json``."""
    folder = Path(folder)
    csv_path = folder / CSV_NAME
    if not csv_path.exists():
        raise FileNotFoundError(
            f"{csv_path} not found: pass the folder a `sanbench profile --out` run wrote"
        )
    rows = pd.read_csv(csv_path)
    missing = [c for c in REQUIRED if c not in rows.columns]
    if missing:
        raise ValueError(
            f"{csv_path}, line 1: header lacks columns {missing}; expected at least "
            f"{', '.join(REQUIRED)} (the file `sanbench profile` writes)"
        )
    for column in NUMERIC:
        rows[column] = pd.to_numeric(rows[column], errors="coerce")
    bad = rows[rows["seq_len"].isna()]
    if not bad.empty:
        line = int(bad.index[0]) + 2
        raise ValueError(f"{csv_path}, line {line}: seq_len must be an integer")
    manifest_path = folder / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    if manifest and manifest.get("kind") != "profile":
        raise ValueError(f"{manifest_path}: kind is {manifest.get('kind')!r}, expected 'profile'")
    return ProfileRun(folder=folder, rows=rows, manifest=manifest)
