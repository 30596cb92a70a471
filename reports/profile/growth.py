"""Log-log growth exponents: the slope k of log y = a + k log L (y ~ L^k), fitted per encoder
and mode, with its standard error (``scipy.stats.linregress``).

A fit needs at least ``MIN_LENGTHS`` distinct lengths (two points always lie on a line: their
R² is 1 whatever the growth); with fewer the table says "not enough lengths", and "nothing
timed" for a time where no point of that encoder and mode was timed (a ``--predict-only`` run,
or points that all failed): not a question of lengths. Over the upper
half of the lengths when that half holds at least ``MIN_LENGTHS`` of them, where the leading
term dominates (fixed costs such as parameters flatten the short end), else over all of them.
k ~ 2 is quadratic growth (DiSAN's [B, L, L, d] attention), k ~ 1 linear (Bi-BloSAN's claim for
its memory). Memory is fitted on the predicted peak where the run predicted at least
``MIN_LENGTHS`` lengths (it spans the papers' whole axis), otherwise on the measured one; time
on the measured medians. A fit with R² < 0.9 or a negative slope is marked unreliable rather
than read as a growth law, and a time fit over contended points (timed while other work held the
CPU: ``harness.measurement.cpu_usage``) says over how many of its lengths: contention inflates the
short and
the long points unequally, so a good R² does not make such an exponent the encoder's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from reports.contracts.profile_run import OK

MIN_R2 = 0.9
MIN_LENGTHS = 3
NOT_ENOUGH = "not enough lengths"
NOT_TIMED = "nothing timed"


@dataclass(frozen=True)
class Fit:
    slope: float
    stderr: float
    r2: float
    points: int
    lengths: tuple[int, int]

    @property
    def reliable(self) -> bool:
        return self.r2 >= MIN_R2 and self.slope >= 0


def fit_loglog(lengths: np.ndarray, values: np.ndarray) -> Fit | None:
    """Slope, its standard error and R² over the upper half of the positive points (see the
    module docstring); None with fewer than ``MIN_LENGTHS`` distinct lengths."""
    keep = values > 0
    frame = pd.DataFrame({"L": lengths[keep], "y": values[keep]})
    frame = frame.groupby("L", as_index=False)["y"].mean().sort_values("L")
    if len(frame) < MIN_LENGTHS:
        return None
    upper = len(frame) // 2
    if len(frame) - upper < MIN_LENGTHS:
        upper = 0
    frame = frame.iloc[upper:]
    fit = stats.linregress(np.log(frame["L"]), np.log(frame["y"]))
    return Fit(
        float(fit.slope),
        float(fit.stderr),
        float(fit.rvalue**2),
        len(frame),
        (int(frame["L"].iloc[0]), int(frame["L"].iloc[-1])),
    )


def _record(name: str, group: pd.DataFrame, column: str, timed: bool = False) -> dict[str, object]:
    """The fit of ``column``; of a ``timed`` one also how many of the lengths it spans hold a
    contended point (memory is not inflated by contention), or ``NOT_TIMED`` as its range when
    no point was timed."""
    points = group.dropna(subset=[column])
    fit = fit_loglog(points["seq_len"].to_numpy(float), points[column].to_numpy(float))
    unfitted = NOT_TIMED if timed and points.empty else NOT_ENOUGH
    contended = 0
    if fit and timed and "contended" in points:
        spanned = points[points["seq_len"].between(*fit.lengths) & (points[column] > 0)]
        contended = spanned[spanned["contended"].fillna(False).astype(bool)]["seq_len"].nunique()
    return {
        f"{name}_slope": fit.slope if fit else np.nan,
        f"{name}_stderr": fit.stderr if fit else np.nan,
        f"{name}_r2": fit.r2 if fit else np.nan,
        f"{name}_range": f"{fit.lengths[0]}-{fit.lengths[1]}" if fit else unfitted,
        f"{name}_fitted": fit is not None,
        f"{name}_reliable": bool(fit and fit.reliable),
        f"{name}_points": fit.points if fit else 0,
        f"{name}_contended": contended,
    }


def growth_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (encoder variant, mode): memory and time exponents with their standard
    errors, R², fitted range (why not, when nothing was fitted: ``NOT_ENOUGH``, ``NOT_TIMED``),
    whether it was fitted, its reliability, the
    lengths fitted and how many of them hold a contended timing, and whether memory was fitted
    on predicted or measured values."""
    records = []
    for (label, mode), group in rows.groupby(["label", "mode"], sort=False):
        ok = group[group["status"] == OK]
        predicted_lengths = group.dropna(subset=["peak_mem_mb_predicted"])["seq_len"].nunique()
        predicted = predicted_lengths >= MIN_LENGTHS
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
                **_record("time", ok, "time_ms_median", timed=True),
            }
        )
    return pd.DataFrame.from_records(records)
