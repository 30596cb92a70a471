"""Tables of a profile run: predicted vs measured memory, what compiling bought, how close the
compiled attention tiles run to this CPU's floor, each encoder against multi-head attention,
and the longest length that fits."""

from __future__ import annotations

import pandas as pd

from reports.contracts.profile_run import MEASURED_STATUSES, OK, POINT_ORDER, TILE_PASSES

# Memory budgets of common accelerators (GB): 16 (V100/T4), 24 (RTX 3090/4090, L4),
# 40 (A100 40GB), 80 (A100/H100 80GB).
BUDGETS_GB = (16, 24, 40, 80)
MB_PER_GB = 1024
# The papers' baseline for memory and time (Bi-BloSAN Fig. 6, MTSA Fig. 1).
REFERENCE = "multi_head"


def prediction_errors(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows measured and predicted: measured and predicted MB and the error in percent.

    The prediction runs the step eagerly on meta tensors, so a compiled row's is compared with
    the same point measured uncompiled (``eager_peak_mem_mb``; ``eager`` is then True): what
    the compiled graph holds is measured only.
    """
    both = rows[(rows["status"] == OK) & rows["peak_mem_mb_predicted"].notna()]
    table = both[[*POINT_ORDER, "peak_mem_mb", "peak_mem_mb_predicted"]].copy()
    table["eager"] = both["eager_peak_mem_mb"].notna()
    table["peak_mem_mb"] = both["eager_peak_mem_mb"].where(table["eager"], both["peak_mem_mb"])
    table["error_pct"] = 100 * (table["peak_mem_mb_predicted"] / table["peak_mem_mb"] - 1)
    return table.sort_values(POINT_ORDER).reset_index(drop=True)


def compile_gains(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of a ``--compile`` run measured both ways: speed-up (eager time / compiled time)
    and memory ratio (compiled peak / eager peak) at the same point."""
    both = rows[(rows["status"] == OK) & rows["eager_time_ms_median"].notna()]
    columns = [*POINT_ORDER, "time_ms_median", "eager_time_ms_median"]
    table = both[[*columns, "peak_mem_mb", "eager_peak_mem_mb"]].copy()
    table["speedup"] = table["eager_time_ms_median"] / table["time_ms_median"]
    table["memory_ratio"] = table["peak_mem_mb"] / table["eager_peak_mem_mb"]
    return table.sort_values(POINT_ORDER).reset_index(drop=True)


def tile_costs(rows: pd.DataFrame) -> pd.DataFrame:
    """Measured rows whose compiled tanh-attention tiles were timed: their ns per attended
    (query, key, feature), the floor of one pass timed beside them, the step's passes and how
    many times the floor of those passes the tiles took."""
    timed = rows[rows["status"].isin(MEASURED_STATUSES) & rows["attention_ns_per_pair"].notna()]
    columns = [*POINT_ORDER, "attention_tiles", "attention_ns_per_pair"]
    table = timed[[*columns, "attention_floor_ns_per_pair"]].copy()
    table["passes"] = table["mode"].map(TILE_PASSES)
    floor = table["passes"] * table["attention_floor_ns_per_pair"]
    table["times_floor"] = table["attention_ns_per_pair"] / floor
    return table.sort_values(POINT_ORDER).reset_index(drop=True)


def ratios_to_reference(rows: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Each other encoder's memory and time over ``reference``'s at the same mode and length.

    Memory is the measured peak where the point was measured and the prediction elsewhere
    (``memory_basis`` says which, for both sides); time only where both were timed (``ok``),
    with ``contended`` set when either timing did not get its CPU. Empty without ``reference``.
    """
    points = rows[[*POINT_ORDER, "status", "time_ms_median"]].copy()
    measured = rows["status"].isin(MEASURED_STATUSES)
    points["memory_mb"] = rows["peak_mem_mb"].where(measured, rows["peak_mem_mb_predicted"])
    points["memory_basis"] = measured.map({True: "measured", False: "predicted"})
    points["time_ms"] = rows["time_ms_median"].where(rows["status"] == OK)
    points["contended"] = rows["contended"].fillna(False).astype(bool)
    keep = ["memory_mb", "memory_basis", "time_ms", "contended"]
    base = points.loc[points["label"] == reference, ["mode", "seq_len", *keep]]
    table = points[points["label"] != reference].merge(
        base, on=["mode", "seq_len"], suffixes=("", "_reference")
    )
    table["memory_ratio"] = table["memory_mb"] / table["memory_mb_reference"]
    table["time_ratio"] = table["time_ms"] / table["time_ms_reference"]
    table["contended"] = table["contended"] | table["contended_reference"]
    table = table.drop(columns=["status", "time_ms_median", "contended_reference"])
    return table.sort_values(POINT_ORDER).reset_index(drop=True)


def longest_fitting(rows: pd.DataFrame) -> list[dict[str, object]]:
    """Per (encoder variant, mode) and budget: the longest predicted length whose predicted
    peak fits, ``"≥ L"`` when the longest predicted length still fits, ``"< L"`` when even the
    shortest does not."""
    table = []
    predicted = rows.dropna(subset=["peak_mem_mb_predicted"])
    for (label, mode), group in predicted.groupby(["label", "mode"], sort=False):
        group = group.sort_values("seq_len")
        record: dict[str, object] = {"encoder": label, "mode": mode}
        for budget in BUDGETS_GB:
            fits = group[group["peak_mem_mb_predicted"] <= budget * MB_PER_GB]["seq_len"]
            if fits.empty:
                record[f"{budget} GB"] = f"< {group['seq_len'].min()}"
            elif fits.max() == group["seq_len"].max():
                record[f"{budget} GB"] = f"≥ {fits.max()}"
            else:
                record[f"{budget} GB"] = str(fits.max())
        table.append(record)
    return table
