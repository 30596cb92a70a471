"""Aggregation over runs, one definition for the suite, the reproduction and the reports: the
mean and the sample standard deviation (ddof 1; NaN for a single run, which has no spread)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class MeanStd:
    n: int
    mean: float
    std: float


def mean_std(values: Iterable[object], scale: float = 1.0) -> MeanStd:
    """Mean and sample std of the numbers among ``values`` (text, None and NaN left out),
    times ``scale``; NaN mean without any, NaN std with fewer than two."""
    numbers = []
    for value in values:
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if not math.isnan(number):
            numbers.append(number * scale)
    n = len(numbers)
    if not n:
        return MeanStd(0, math.nan, math.nan)
    mean = math.fsum(numbers) / n
    if n < 2:
        return MeanStd(n, mean, math.nan)
    variance = math.fsum((x - mean) ** 2 for x in numbers) / (n - 1)
    return MeanStd(n, mean, math.sqrt(variance))


CONFIDENCE = 0.95


def half_interval(stats: MeanStd, confidence: float = CONFIDENCE) -> float:
    """Half the width of the Student-t confidence interval of the mean (``confidence``, n - 1
    degrees of freedom): mean ± this covers the true mean that often over repeated runs; NaN
    for a single run, which has no spread."""
    if stats.n < 2 or math.isnan(stats.std):
        return math.nan
    from scipy import stats as scipy_stats

    t = float(scipy_stats.t.ppf((1 + confidence) / 2, stats.n - 1))
    return t * stats.std / math.sqrt(stats.n)
