"""Reading a profile run folder: ``profile.csv`` (one row per encoder variant, length and mode)
and ``manifest.json``; the run's environment and its longest-length summary."""

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
NUMERIC = (
    "seq_len",
    "time_ms_median",
    "time_ms_iqr",
    "peak_mem_mb",
    "peak_mem_mb_predicted",
    "params",
    "flops",
    "cpu_share",
    "cpu_granted",
    "load_avg_before",
    "load_avg_after",
)
# Columns added after the first profile.csv format; older files read as if they were empty.
OPTIONAL = {
    "options": "",
    "peak_mem_mb_predicted": None,
    "noisy": False,
    "contended": False,
    "cpu_share": None,
    "cpu_granted": None,
    "load_avg_before": None,
    "load_avg_after": None,
}
ENV_COLUMNS = ("device", "device_name", "dtype", "torch", "cuda", "python", "threads")
ENV_COLUMNS += ("cpu_count", "allocator", "compile", "commit", "batch_size", "dim")


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
    for column, default in OPTIONAL.items():
        if column not in rows.columns:
            rows[column] = default
    rows["options"] = rows["options"].astype(object).fillna("").astype(str)
    for flag in ("noisy", "contended"):
        rows[flag] = rows[flag].astype(str).str.lower().eq("true")
    rows["label"] = rows["encoder"].where(
        rows["options"] == "", rows["encoder"] + ":" + rows["options"]
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


def environment(run: ProfileRun) -> dict[str, str]:
    """The manifest's environment, overridden by the values the rows actually record."""
    env = {str(k): str(v) for k, v in run.manifest.get("environment", {}).items()}
    for column in ENV_COLUMNS:
        if column in run.rows.columns:
            values = run.rows[column].dropna().astype(str).unique()
            env[column] = ", ".join(sorted(values))
    loads = pd.concat([run.rows["load_avg_before"], run.rows["load_avg_after"]]).dropna()
    if not loads.empty:
        env["load average (1 min)"] = f"{loads.min():.2f}–{loads.max():.2f} while measuring"
    return env


def longest_points(rows: pd.DataFrame) -> list[dict[str, object]]:
    """Per (encoder variant, mode): the longest measured length and the first OOM length."""
    summary = []
    for (label, mode), group in rows.groupby(["label", "mode"], sort=False):
        ok = group[group["status"] == "ok"].sort_values("seq_len")
        oom = group[group["status"] == "oom"]["seq_len"]
        if ok.empty:
            continue
        last = ok.iloc[-1]
        summary.append(
            {
                "encoder": label,
                "mode": mode,
                "params": int(last["params"]),
                "seq_len": int(last["seq_len"]),
                "time_ms_median": float(last["time_ms_median"]),
                "peak_mem_mb": float(last["peak_mem_mb"]),
                "oom_at": int(oom.min()) if not oom.empty else "",
            }
        )
    return summary
