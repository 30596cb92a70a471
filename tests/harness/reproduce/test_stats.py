"""Kendall's τ, the paired tests and Holm's correction of ``harness.reproduce.stats`` against
hand-worked values, ties included."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.reproduce import stats as stats_module
from harness.reproduce.stats import holm, kendall_tau, paired_test, pooled_p_value


def test_tau_one_swapped_pair_of_four() -> None:
    # ours: a > c > b > d, paper: a > b > c > d. Of the 6 pairs only (b, c) is discordant:
    # tau = (5 - 1) / 6.
    ours = [90.0, 85.0, 88.0, 80.0]
    paper = [95.0, 94.0, 93.0, 92.0]
    assert kendall_tau(ours, paper).tau == pytest.approx(4 / 6)


def test_tau_p_value_is_the_exact_one_sided_permutation_probability() -> None:
    # Of the 24 orders of 4 encoders, 1 has no inversion and 3 have one (Mahonian numbers):
    # P(at most one discordant pair) = 4 / 24.
    agreement = kendall_tau([90.0, 85.0, 88.0, 80.0], [95.0, 94.0, 93.0, 92.0])
    assert agreement.p_value == pytest.approx(4 / 24)
    assert not agreement.agrees
    # 6 encoders, 3 of 15 pairs swapped (tau 0.6): (1 + 5 + 14 + 29) / 720 = 0.068
    six = kendall_tau([5.0, 6.0, 3.0, 4.0, 1.0, 2.0], [6.0, 5.0, 4.0, 3.0, 2.0, 1.0])
    assert six.tau == pytest.approx(0.6)
    assert six.p_value == pytest.approx(49 / 720)
    # the same order of 6: 1 / 720, significant
    assert kendall_tau([6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [6, 5, 4, 3, 2, 1]).agrees


def test_the_exact_p_value_scores_each_of_the_n_factorial_orders_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 6 encoders, ties on both sides: 720 orders of ours against the paper's, and the observed
    # one twice (kendall_tau's, scipy's); scipy pairing every order of both sides scored
    # 720^2 = 518,400, each pairing 720 times
    scored = []

    def counted(x, y, axis=-1):  # type: ignore[no-untyped-def]
        scored.append(int(np.prod(np.broadcast_shapes(np.shape(x), np.shape(y))[:-1])))
        return tau_b(x, y, axis=axis)

    tau_b = stats_module._tau_b
    monkeypatch.setattr(stats_module, "_tau_b", counted)
    agreement = kendall_tau([5.0, 6.0, 3.0, 3.0, 1.0, 2.0], [6.0, 5.0, 4.0, 3.0, 3.0, 1.0])
    assert sum(scored) == 720 + 2 and agreement.method == "exact"


def test_pooled_p_value_is_fishers_combination() -> None:
    # X = -2 (ln 1/6 + ln 1/6) = 7.167, chi-square with 4 df: p = e^(-X/2) (1 + X/2) = 0.127
    x = -4 * math.log(1 / 6)
    assert pooled_p_value([1 / 6, 1 / 6, math.nan]) == pytest.approx(math.exp(-x / 2) * (1 + x / 2))
    assert math.isnan(pooled_p_value([math.nan]))


def test_tau_b_with_a_tie_in_our_scores_and_its_exact_p_value() -> None:
    # pairs (1,2) tied in ours (neither), (1,3) and (2,3) concordant:
    # tau-b = (2 - 0) / sqrt((3 - 1) * (3 - 0)).
    tied = kendall_tau([1.0, 1.0, 2.0], [1.0, 2.0, 3.0])
    assert tied.tau == pytest.approx(2 / math.sqrt(6))
    # the 6 orders of (1, 1, 2) against (1, 2, 3), by hand: (1, 1, 2) twice, tau-b 2/sqrt(6);
    # (1, 2, 1) twice, S = 1 - 1 = 0; (2, 1, 1) twice, -2/sqrt(6). P(tau >= observed) = 2/6.
    assert tied.p_value == pytest.approx(2 / 6) and tied.method == "exact"
    # scipy's normal approximation gives 0.110 here: not what the permutations give
    from scipy import stats

    approximate = stats.kendalltau([1.0, 1.0, 2.0], [1.0, 2.0, 3.0], alternative="greater")
    assert abs(approximate.pvalue - 2 / 6) > 0.1


def test_tau_p_value_with_a_tie_on_the_paper_side_enumerates_every_order() -> None:
    """CR in docs/results.md: the paper ties DiSAN and Bi-BloSAN at 84.8. Checked against every
    one of the 120 orders, counted here with scipy's tau-b: 8 are at least as concordant."""
    import itertools

    from scipy import stats

    ours, paper = [78.1, 80.0, 80.5, 80.4, 81.3], [84.6, 82.6, 84.8, 84.8, 84.9]
    observed = stats.kendalltau(ours, paper).statistic
    orders = list(itertools.permutations(ours))
    count = sum(stats.kendalltau(order, paper).statistic >= observed - 1e-12 for order in orders)
    assert (count, len(orders)) == (8, 120)
    agreement = kendall_tau(ours, paper)
    assert agreement.tau == pytest.approx(observed)
    assert agreement.p_value == pytest.approx(8 / 120)
    assert not agreement.agrees  # scipy's own kendalltau p-value said 0.038: agrees


def test_tau_beyond_eight_encoders_is_exact_without_ties_and_sampled_with_them() -> None:
    untied = kendall_tau(list(range(10)), [0, 1, 2, 3, 4, 5, 6, 7, 9, 8])
    assert untied.method == "exact" and untied.p_value == pytest.approx(10 / 3628800)  # 1 + 9
    tied = kendall_tau(list(range(10)), [0, 1, 2, 3, 4, 5, 6, 7, 7, 8])
    assert tied.method == "monte carlo" and tied.p_value < 1e-4


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.02, 0.04 of m = 3: 3 * 0.01 = 0.03, 2 * 0.02 = 0.04, max(0.04, 1 * 0.04)
    assert holm([0.04, 0.01, math.nan, 0.02]) == pytest.approx([0.04, 0.03, math.nan, 0.04],
                                                               nan_ok=True)  # fmt: skip
    # monotone: a later raw p never gets a smaller adjusted one, and 1 caps it
    assert holm([0.03, 0.02, 0.9]) == pytest.approx([0.06, 0.06, 0.9])
    assert holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])


def test_corrected_resampled_t_test_by_hand() -> None:
    # differences 1, 2, 1 over 3 CV folds, test/train 1/8.1: variance (1/3)(1/3 + 1/8.1),
    # t = (4/3) / sqrt(that) = 3.429 with 2 df: two-sided p = 1 - t / sqrt(2 + t^2)
    a = {"fold0": 90.0, "fold1": 92.0, "fold2": 94.0}
    b = {"fold0": 89.0, "fold1": 90.0, "fold2": 93.0}
    test = paired_test(a, b, test_to_train=1 / 8.1)
    t = (4 / 3) / math.sqrt((1 / 3) * (1 / 3 + 1 / 8.1))
    assert test.p_value == pytest.approx(1 - t / math.sqrt(2 + t * t))
    assert test.p_value > paired_test(a, b).p_value  # more conservative than the plain test
    assert test.test == "corrected resampled t"


def test_tau_reversed_order_is_minus_one_and_needs_two_encoders() -> None:
    assert kendall_tau([3.0, 2.0, 1.0], [1.0, 2.0, 3.0]).tau == pytest.approx(-1.0)
    assert math.isnan(kendall_tau([1.0], [2.0]).tau)
    with pytest.raises(ValueError, match="one paper score per encoder"):
        kendall_tau([1.0, 2.0], [1.0])


def test_paired_t_test_by_hand_with_two_degrees_of_freedom() -> None:
    # differences 1, 2, 1: mean 4/3, sd 1/sqrt(3), t = 4; with 2 df the two-sided
    # p = 1 - t / sqrt(2 + t^2) = 1 - 4 / sqrt(18) = 0.0572 -> not separable at 0.05.
    a = {"seed0": 90.0, "seed1": 92.0, "seed2": 94.0}
    b = {"seed0": 89.0, "seed1": 90.0, "seed2": 93.0}
    test = paired_test(a, b)
    assert test.n == 3
    assert test.mean_difference == pytest.approx(4 / 3)
    assert test.p_value == pytest.approx(1 - 4 / math.sqrt(18))
    assert test.test == "paired t"
    # differences 3, 4, 5: t = 4 * sqrt(3), p = 1 - t / sqrt(2 + 48) = 0.0202 -> separable
    c = {"seed0": 87.0, "seed1": 88.0, "seed2": 89.0}
    strong = paired_test(a, c)
    assert strong.p_value == pytest.approx(1 - 4 * math.sqrt(3) / math.sqrt(50))


def test_paired_test_uses_only_shared_replicates_and_never_separates_without_spread() -> None:
    a = {"fold0": 80.0, "fold1": 82.0, "fold2": 81.0}
    b = {"fold0": 79.0, "fold1": 81.0}
    same_gap = paired_test(a, b)  # both differences are 1: t undefined
    assert same_gap.n == 2 and same_gap.mean_difference == pytest.approx(1.0)
    assert math.isnan(same_gap.p_value)
    single = paired_test({"seed0": 1.0}, {"seed0": 0.0, "seed1": 2.0})
    assert single.n == 1 and math.isnan(single.p_value)
