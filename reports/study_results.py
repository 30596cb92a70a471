"""A study's own results (``summary.json``'s ``results``) in the words docs/studies.md gives
them: on its page and on the console of ``sanbench tune``."""

from __future__ import annotations

from typing import Any

from reports import numbers

# the names of the block-length-memory study's results (harness/studies/block_length_memory.py)
# and the block-length study's (harness/studies/block_length.py); any other key as it is
RESULT_LABELS = {
    "shape": "input shape",
    "attention_impl": "the blocks' tanh attention",
    "per_length": "Per length n",
    "seq_len": "n (seq_len)",  # its trials' parameter names beside Appendix A's letters
    "r_measured": "measured argmin r (block_len)",
    "mem_measured_mb": "its peak (MB)",
    "r_eq19": "Eq. 19 cbrt(2n)",
    "r_eq19_int_cost": "argmin of r^2 ceil(n/r) + ceil(n/r)^2",
    "r_encoder": "encoder default ceil(cbrt(2n))",
    "mem_at_r_encoder_mb": "peak at the default (MB)",
    "excess_at_r_encoder": "excess memory at the default",
    "points": "r tried",
    "length_mean": "mean sentence length",
    "length_std": "its std",
    "batch_size": "batch size",
    "expected_max_length": "expected longest sentence of a batch",
    "appendix_a_r": "Appendix A's r",
    "appendix_a_r_ceil": "Appendix A's r, rounded up",
    "best_r_by_dev": "r of the best dev score",
    "pareto": "Pareto front",
}
# a study's objectives and its trials' parameters (trials.csv's value_* and params_* columns)
# in the words of its page's tables and axes (docs/studies.md); any other name as it is
NAME_LABELS = {
    "seq_len": RESULT_LABELS["seq_len"],
    "block_len": "r (block_len)",
    "peak_mem_mb": "peak memory (MB)",
    "peak_train_mem_mb": "training memory (MB)",
    "train_time_s": "training time (s)",
    "dev_pearson": "dev Pearson's r",
}
EXCESS_KEYS = {"excess_at_r_encoder"}  # a fraction above the best, shown as "+4.1 %"


def result_cell(key: str, value: Any) -> str:
    """A study result's value: an excess over the best as a signed percentage."""
    if key in EXCESS_KEYS and numbers.percent(value) != numbers.MISSING:
        return f"{100 * value:+.1f} %"
    return numbers.metric(key, value)


TIED = "_tied_with"  # a result's key + TIED: the other trials whose values its trial equals


def result_label(key: str) -> str:
    """A study result's key in words: ``RESULT_LABELS``'s, else ``best_dev_acc`` as "best dev
    acc (%)" and a record's ``block_len`` as "r (block_len)" (:func:`name_label`)."""
    if key in RESULT_LABELS:
        return RESULT_LABELS[key]
    best = key.startswith("best_")
    return f"best {name_label(key.removeprefix('best_'))}" if best else name_label(key)


def result_text(results: dict[str, Any], key: str) -> str:
    """A scalar result's value, with the tie its ``KEY_tied_with`` records (``27 (tied with
    trial 1)``: r = 24 scored the same)."""
    tied = results.get(key + TIED)
    return result_cell(key, results[key]) + (f" ({tie_text(tied)})" if tied else "")


def tie_text(numbers_tied: list[int]) -> str:
    """``tied with trial 1`` (``trials 1, 2``): the other finished trials whose objective
    values a best trial equals (``summary.json``'s ``tied_with``), on its page and console."""
    trials = "trial" if len(numbers_tied) == 1 else "trials"
    return f"tied with {trials} {', '.join(str(n) for n in numbers_tied)}"


def name_label(name: str) -> str:
    """An objective's or a parameter's name in words (``NAME_LABELS``), an accuracy's with its
    unit: ``dev_acc`` is ``dev acc (%)``."""
    if name in NAME_LABELS:
        return NAME_LABELS[name]
    return f"{name.replace('_', ' ')} (%)" if numbers.is_accuracy(name) else name
