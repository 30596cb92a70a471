"""Tables of a profile run: predicted vs measured memory, what compiling bought, and the longest
length that fits."""

from __future__ import annotations

import pandas as pd

# Memory budgets of common accelerators (GB): 16 (V100/T4), 24 (RTX 3090/4090, L4),
# 40 (A100 40GB), 80 (A100/H100 80GB).
BUDGETS_GB = (16, 24, 40, 80)
MB_PER_GB = 1024


def prediction_errors(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows measured and predicted: measured and predicted MB and the error in percent."""
    both = rows[(rows["status"] == "ok") & rows["peak_mem_mb_predicted"].notna()]
    table = both[["label", "mode", "seq_len", "peak_mem_mb", "peak_mem_mb_predicted"]].copy()
    table["error_pct"] = 100 * (table["peak_mem_mb_predicted"] / table["peak_mem_mb"] - 1)
    return table.sort_values(["label", "mode", "seq_len"]).reset_index(drop=True)


def compile_gains(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of a ``--compile`` run measured both ways: speed-up (eager time / compiled time)
    and memory ratio (compiled peak / eager peak) at the same point."""
    both = rows[(rows["status"] == "ok") & rows["eager_time_ms_median"].notna()]
    columns = ["label", "mode", "seq_len", "time_ms_median", "eager_time_ms_median"]
    table = both[[*columns, "peak_mem_mb", "eager_peak_mem_mb"]].copy()
    table["speedup"] = table["eager_time_ms_median"] / table["time_ms_median"]
    table["memory_ratio"] = table["peak_mem_mb"] / table["eager_peak_mem_mb"]
    return table.sort_values(["label", "mode", "seq_len"]).reset_index(drop=True)


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
