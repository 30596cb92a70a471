"""``datamodules.stats``: what ``sanbench data stats`` reports of sentence lengths."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from datamodules.stats import PERCENTILES, length_summary


@given(st.lists(st.integers(min_value=0, max_value=400), min_size=1, max_size=300))
def test_length_percentiles_are_lengths_read_by_nearest_rank(lengths: list[int]) -> None:
    """Issue 56.13: p99 of integer lengths printed as 15.01 (linear interpolation). pQ is the
    nearest rank: the least length that at least Q% of the sentences do not exceed."""
    summary = length_summary(lengths)
    for q in PERCENTILES:
        value = summary[f"p{q}"]
        assert value == int(value) and int(value) in lengths
        assert 100 * sum(n <= value for n in lengths) >= q * len(lengths)
        assert 100 * sum(n < value for n in lengths) < q * len(lengths)
