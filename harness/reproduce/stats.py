"""Rank agreement and paired significance for the reproduction tables.

* Kendall's τ-b between our per-task ranking of encoders (mean accuracy) and the paper's
  (``scipy.stats.kendalltau``): +1 same order, -1 reversed, ties counted as in τ-b, with the
  one-sided p-value of "our order agrees with the paper's" (H1: τ > 0; exact for small n
  without ties). With 6 encoders even τ = 0.6 has p = 0.068, so one task alone rarely shows
  agreement: the per-task p-values are pooled over tasks by Fisher's method
  (``scipy.stats.combine_pvalues``), the test of "the papers' order holds across tasks".
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


@dataclass(frozen=True)
class RankAgreement:
    """Kendall's τ-b of our order against the paper's and its one-sided p-value (H1: τ > 0)."""

    tau: float
    p_value: float

    @property
    def agrees(self) -> bool:
        """True when the agreement is significant at ``ALPHA`` (never for a NaN p-value)."""
        return self.p_value < ALPHA


def kendall_tau(ours: Sequence[float], paper: Sequence[float]) -> RankAgreement:
    """τ-b of two score lists over the same encoders and its p-value (both NaN with fewer than
    two encoders or when either side has every score equal)."""
    if len(ours) != len(paper):
        raise ValueError(f"need one paper score per encoder, got {len(ours)} and {len(paper)}")
    if len(ours) < 2:
        return RankAgreement(math.nan, math.nan)
    tau, p_value = stats.kendalltau(ours, paper, alternative="greater")
    return RankAgreement(float(tau), float(p_value))


def pooled_p_value(p_values: Sequence[float]) -> float:
    """Fisher's combination of the per-task one-sided p-values (NaNs left out; NaN if none)."""
    defined = [p for p in p_values if not math.isnan(p)]
    if not defined:
        return math.nan
    return float(stats.combine_pvalues(defined, method="fisher").pvalue)


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
