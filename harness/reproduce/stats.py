"""Rank agreement and paired significance for the reproduction tables.

* Kendall's τ-b between our per-task ranking of encoders (mean accuracy) and the paper's
  (``scipy.stats.kendalltau``): +1 same order, -1 reversed, ties counted as in τ-b, with the
  one-sided p-value of "our order agrees with the paper's" (H1: τ > 0). The p-value is exact,
  ties included: τ-b of every one of the n! orders of our scores against the paper's
  (``scipy.stats.permutation_test``, all orders up to ``EXACT_UP_TO`` encoders; scipy's own
  ``kendalltau`` p-value turns into a normal approximation as soon as either side has a tie).
  With 6 encoders even τ = 0.6 has p = 0.068, so one task alone rarely shows agreement: the
  per-task p-values are pooled over tasks by Fisher's method (``scipy.stats.combine_pvalues``),
  which assumes they are independent (different data sets, but the same encoders and code, so
  an approximation); with exact, discrete p-values it is conservative.
* A paired t-test over the folds or seeds two encoders share: every replicate is the same data
  split and seed for both, so the per-replicate differences are paired. Seeds share their
  training data whole and differ in the random draws only: the ordinary paired t-test
  (``scipy.stats.ttest_rel``). Cross-validation folds share most of their training data, so
  their differences are correlated and the ordinary test is too liberal: Nadeau and Bengio's
  corrected resampled t-test (Machine Learning 52, 2003, Eq. 8), which scales the variance by
  ``1/J + n_test/n_train``.
* The pair tests of a reproduction are one family: Holm's step-down correction
  (:func:`holm`) keeps the chance of any false separation at ``ALPHA``. Uncorrected, chance
  alone would separate ``ALPHA`` of the pairs that do not differ.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

ALPHA = 0.05
EXACT_UP_TO = 8  # 8! = 40,320 orders: every order is enumerated up to here
MONTE_CARLO_ORDERS = 99_999  # beyond it, with ties: random orders (a seeded generator)


@dataclass(frozen=True)
class RankAgreement:
    """Kendall's τ-b of our order against the paper's, its one-sided p-value (H1: τ > 0) and
    how the p-value was found (``exact`` or ``monte carlo``)."""

    tau: float
    p_value: float
    method: str = "exact"

    @property
    def agrees(self) -> bool:
        """True when the agreement is significant at ``ALPHA`` (never for a NaN p-value)."""
        return self.p_value < ALPHA


def _tau_b(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """τ-b of ``x`` against ``y`` along ``axis`` (batches of orders at once)."""
    i, j = np.triu_indices(x.shape[axis], k=1)
    dx = np.sign(np.take(x, j, axis=axis) - np.take(x, i, axis=axis))
    dy = np.sign(np.take(y, j, axis=axis) - np.take(y, i, axis=axis))
    untied_x, untied_y = (dx != 0).sum(axis=axis), (dy != 0).sum(axis=axis)
    return (dx * dy).sum(axis=axis) / np.sqrt(untied_x * untied_y)


def kendall_tau(ours: Sequence[float], paper: Sequence[float]) -> RankAgreement:
    """τ-b of two score lists over the same encoders and its one-sided permutation p-value:
    the share of the orders of ``ours`` whose τ-b against ``paper`` is at least the observed
    one (both NaN with fewer than two encoders or when either side has every score equal)."""
    if len(ours) != len(paper):
        raise ValueError(f"need one paper score per encoder, got {len(ours)} and {len(paper)}")
    x, y = np.asarray(ours, dtype=float), np.asarray(paper, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return RankAgreement(math.nan, math.nan)
    tau = float(_tau_b(x, y))  # the statistic the permutations below are compared by
    untied = len(np.unique(x)) == len(x) and len(np.unique(y)) == len(y)
    if untied and len(x) > EXACT_UP_TO:  # scipy's exact distribution of untied τ, any n
        exact_p = stats.kendalltau(x, y, alternative="greater", method="exact").pvalue
        return RankAgreement(tau, float(exact_p))
    exact = len(x) <= EXACT_UP_TO

    def against_paper(orders: np.ndarray, axis: int = -1) -> np.ndarray:
        return _tau_b(orders, y, axis=axis)

    # one sample: its n! orders against the paper's fixed one. Given (x, y), scipy pairs every
    # order of each with every order of the other, (n!)^2 (518,400 for 6 encoders, each
    # pairing n! times over), the same p-value at n! times the cost.
    result = stats.permutation_test(
        (x,),
        against_paper,
        permutation_type="pairings",
        vectorized=True,
        alternative="greater",
        n_resamples=np.inf if exact else MONTE_CARLO_ORDERS,
        rng=np.random.default_rng(0),
    )
    return RankAgreement(tau, float(result.pvalue), "exact" if exact else "monte carlo")


def pooled_p_value(p_values: Sequence[float]) -> float:
    """Fisher's combination of the per-task one-sided p-values (NaNs left out; NaN if none)."""
    defined = [p for p in p_values if not math.isnan(p)]
    if not defined:
        return math.nan
    return float(stats.combine_pvalues(defined, method="fisher").pvalue)


@dataclass(frozen=True)
class PairedTest:
    """Encoder ``a`` minus encoder ``b`` over their ``n`` shared replicates: the two-sided
    p-value of the test named ``test`` (uncorrected for the other pairs: see :func:`holm`)."""

    n: int
    mean_difference: float
    p_value: float
    test: str


PAIRED_T = "paired t"
CORRECTED_T = "corrected resampled t"


def paired_test(
    a: Mapping[str, float], b: Mapping[str, float], test_to_train: float | None = None
) -> PairedTest:
    """Paired t-test of two encoders' scores keyed by replicate (``fold0``, ``seed1``...).

    ``test_to_train``: for cross-validation folds, the test set's size over the training
    set's; the variance of the differences is then scaled by ``1/J + test_to_train`` instead of
    ``1/J`` (Nadeau and Bengio's corrected resampled t-test, J shared folds, J - 1 degrees of
    freedom). None: seeds over the same data, the ordinary paired t-test.

    Only replicates both have count. With fewer than two, or with every difference equal
    (no spread: t is undefined), the p-value is NaN and the pair counts as not separable.
    """
    name = PAIRED_T if test_to_train is None else CORRECTED_T
    shared = sorted(set(a) & set(b))
    differences = np.array([a[key] - b[key] for key in shared], dtype=float)
    n = len(differences)
    mean = float(differences.mean()) if n else math.nan
    if n < 2 or np.ptp(differences) == 0:
        return PairedTest(n, mean, math.nan, name)
    if test_to_train is None:
        _, p_value = stats.ttest_rel([a[key] for key in shared], [b[key] for key in shared])
        return PairedTest(n, mean, float(p_value), name)
    variance = differences.var(ddof=1) * (1 / n + test_to_train)
    t = mean / math.sqrt(variance)
    return PairedTest(n, mean, float(2 * stats.t.sf(abs(t), df=n - 1)), name)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (Holm 1979): the k-th smallest of m is multiplied by
    ``m - k + 1``, made non-decreasing and capped at 1. A pair is separable when its adjusted
    p-value is below ``ALPHA``; the chance of any false separation among the m is then at most
    ``ALPHA``. NaNs stay NaN and do not count in m."""
    defined = [(p, i) for i, p in enumerate(p_values) if not math.isnan(p)]
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(defined)):
        running = max(running, min(1.0, (len(defined) - rank) * p))
        adjusted[i] = running
    return adjusted
