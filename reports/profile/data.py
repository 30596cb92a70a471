"""A profile run folder as the report sees it: its rows and manifest, the run's environment and
its longest-length summary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from reports.contracts.manifest import read_manifest_if_any
from reports.contracts.profile_run import OK, OOM, read_profile
from reports.numbers import RANGE_DASH

ENV_COLUMNS = ("device", "device_name", "dtype", "torch", "cuda", "python", "threads")
ENV_COLUMNS += ("cpu_count", "allocator", "compile", "commit", "batch_size", "dim")
LOAD_KEY = "load average (1 min)"  # measured while timing: not a setting of the run


@dataclass(frozen=True)
class ProfileRun:
    folder: Path
    rows: pd.DataFrame
    manifest: dict[str, Any]


def load_run(folder: Path) -> ProfileRun:
    """Read and check ``folder``'s profile rows and manifest (``reports.contracts``)."""
    folder = Path(folder)
    return ProfileRun(folder, read_profile(folder), read_manifest_if_any(folder, "profile"))


def environment(run: ProfileRun) -> dict[str, str]:
    """The machine and software the run's manifest records (one source for every page: the
    index, the run's page, a comparison across machines); the rows only for a key it lacks
    (the dtype, or every key of a run without a manifest)."""
    env = {str(k): str(v) for k, v in run.manifest.get("environment", {}).items()}
    for column in ENV_COLUMNS:
        if column in run.rows.columns and column not in env:
            values = run.rows[column].dropna().astype(str).unique()
            env[column] = ", ".join(sorted(values))
    loads = pd.concat([run.rows["load_avg_before"], run.rows["load_avg_after"]]).dropna()
    if not loads.empty:
        env[LOAD_KEY] = f"{loads.min():.2f}{RANGE_DASH}{loads.max():.2f} while measuring"
    return env


def longest_points(rows: pd.DataFrame) -> list[dict[str, object]]:
    """Per (encoder variant, mode): the longest measured length and the first OOM length."""
    summary = []
    for (label, mode), group in rows.groupby(["label", "mode"], sort=False):
        ok = group[group["status"] == OK].sort_values("seq_len")
        oom = group[group["status"] == OOM]["seq_len"]
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
