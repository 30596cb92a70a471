"""Log-log growth exponents: the slope b of log y = a + b log L, fitted per encoder and mode.

Fitted over the upper half of each encoder's lengths, where the leading term dominates (fixed
costs such as parameters flatten the short end). b ~ 2 is quadratic growth (DiSAN's
[B, L, L, d] attention), b ~ 1 linear (Bi-BloSAN's claim for its memory). Memory is fitted on
the predicted peak where the run has it (it spans the papers' whole axis), otherwise on the
measured one; time on the measured medians. A fit with R² < 0.9 or a negative slope is marked
unreliable rather than read as a growth law.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

MIN_R2 = 0.9


@dataclass(frozen=True)
class Fit:
    slope: float
    r2: float
    points: int
    lengths: tuple[int, int]

    @property
    def reliable(self) -> bool:
        return self.r2 >= MIN_R2 and self.slope >= 0


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


def _record(name: str, group: pd.DataFrame, column: str) -> dict[str, object]:
    points = group.dropna(subset=[column])
    fit = fit_loglog(points["seq_len"].to_numpy(float), points[column].to_numpy(float))
    return {
        f"{name}_slope": fit.slope if fit else np.nan,
        f"{name}_r2": fit.r2 if fit else np.nan,
        f"{name}_range": f"{fit.lengths[0]}-{fit.lengths[1]}" if fit else "",
        f"{name}_reliable": bool(fit and fit.reliable),
    }


def growth_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (encoder variant, mode): memory and time exponents, R², fitted range,
    reliability, and whether memory was fitted on predicted or measured values."""
    records = []
    for (label, mode), group in rows.groupby(["label", "mode"], sort=False):
        ok = group[group["status"] == "ok"]
        predicted = group["peak_mem_mb_predicted"].notna().sum() >= 2
        memory = _record(
            "memory",
            group if predicted else ok,
            "peak_mem_mb_predicted" if predicted else "peak_mem_mb",
        )
        records.append(
            {
                "encoder": label,
                "mode": mode,
                **memory,
                "memory_source": "predicted" if predicted else "measured",
                **_record("time", ok, "time_ms_median"),
            }
        )
    return pd.DataFrame.from_records(records)
