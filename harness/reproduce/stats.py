"""Rank agreement and paired significance for the reproduction tables.

* Kendall's τ-b between our per-task ranking of encoders (mean accuracy) and the paper's
  (``scipy.stats.kendalltau``): +1 same order, -1 reversed, ties counted as in τ-b.
* A paired t-test over the folds or seeds two encoders share (``scipy.stats.ttest_rel``):
  every replicate is the same data split and seed for both, so the per-replicate differences
  are paired. Pairs with ``p >= ALPHA`` are reported as not separable rather than ranked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy import stats

ALPHA = 0.05


def kendall_tau(ours: Sequence[float], paper: Sequence[float]) -> float:
    """τ-b of two score lists over the same encoders (NaN with fewer than two encoders or
    when either side has every score equal)."""
    if len(ours) != len(paper):
        raise ValueError(f"need one paper score per encoder, got {len(ours)} and {len(paper)}")
    if len(ours) < 2:
        return math.nan
    tau, _ = stats.kendalltau(ours, paper)  # (statistic, p-value) in every scipy release
    return float(tau)


@dataclass(frozen=True)
class PairedTest:
    """Encoder ``a`` minus encoder ``b`` over their ``n`` shared replicates."""

    n: int
    mean_difference: float
    p_value: float

    @property
    def separable(self) -> bool:
        """True when the difference is significant at ``ALPHA`` (never for a NaN p-value)."""
        return self.p_value < ALPHA


def paired_test(a: Mapping[str, float], b: Mapping[str, float]) -> PairedTest:
    """Paired t-test of two encoders' scores keyed by replicate (``fold0``, ``seed1``...).

    Only replicates both have count. With fewer than two, or with every difference equal
    (no spread: t is undefined), the p-value is NaN and the pair counts as not separable.
    """
    shared = sorted(set(a) & set(b))
    differences = [a[key] - b[key] for key in shared]
    n = len(differences)
    mean = sum(differences) / n if n else math.nan
    if n < 2 or max(differences) == min(differences):
        return PairedTest(n, mean, math.nan)
    _, p_value = stats.ttest_rel([a[key] for key in shared], [b[key] for key in shared])
    return PairedTest(n, mean, float(p_value))
