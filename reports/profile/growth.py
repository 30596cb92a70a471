"""Log-log growth exponents: the slope b of log y = a + b log L, fitted per encoder and mode.

Fitted over the upper half of each encoder's measured lengths, where the leading term
dominates (fixed costs such as parameters flatten the short end). b ~ 2 is quadratic growth
(DiSAN's [B, L, L, d] attention), b ~ 1 linear (Bi-BloSAN's claim for its memory).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

METRICS = {"peak_mem_mb": "memory", "time_ms_median": "time"}


@dataclass(frozen=True)
class Fit:
    slope: float
    r2: float
    points: int
    lengths: tuple[int, int]


def fit_loglog(lengths: np.ndarray, values: np.ndarray) -> Fit | None:
    """Least-squares slope and R^2 over the upper half of the points (None if < 2 points)."""
    order = np.argsort(lengths)
    lengths, values = lengths[order], values[order]
    keep = values > 0
    lengths, values = lengths[keep], values[keep]
    if len(lengths) < 2:
        return None
    upper = len(lengths) // 2 if len(lengths) >= 4 else 0
    x, y = np.log(lengths[upper:]), np.log(values[upper:])
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    spread = np.sum((y - y.mean()) ** 2)
    r2 = 1.0 - np.sum(residual**2) / spread if spread > 0 else 1.0
    return Fit(float(slope), float(r2), len(x), (int(lengths[upper]), int(lengths[-1])))


def growth_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (encoder, mode): memory and time exponents, R^2 and the fitted length range."""
    ok = rows[rows["status"] == "ok"]
    records = []
    for (encoder, mode), group in ok.groupby(["encoder", "mode"], sort=False):
        record: dict[str, object] = {"encoder": encoder, "mode": mode}
        for column, name in METRICS.items():
            fit = fit_loglog(group["seq_len"].to_numpy(float), group[column].to_numpy(float))
            record[f"{name}_slope"] = fit.slope if fit else np.nan
            record[f"{name}_r2"] = fit.r2 if fit else np.nan
            record[f"{name}_range"] = f"{fit.lengths[0]}-{fit.lengths[1]}" if fit else ""
        records.append(record)
    return pd.DataFrame.from_records(records)
