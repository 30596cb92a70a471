"""The number style never prints a negative zero (issue 56: the profile page's prediction errors
read ``-0.0``): a value that rounds to zero shows as zero, whatever its sign."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from reports import numbers

FORMATTERS = (numbers.quantity, numbers.percent, numbers.score, numbers.ratio, numbers.fixed)
DIGITS = re.compile(r"[1-9]")


@given(st.floats(allow_nan=True, allow_infinity=True), st.integers(0, 4))
def test_a_shown_minus_sign_always_stands_before_a_nonzero_digit(value: float, digits: int) -> None:
    shown = [f(value) for f in FORMATTERS] + [numbers.fixed(value, digits)]
    for text in shown:
        assert not text.startswith("-") or DIGITS.search(text), (value, text)
        if value < 0 and DIGITS.search(text):
            assert text.startswith("-"), (value, text)


def test_the_errors_of_the_issue_read_as_zero() -> None:
    assert numbers.fixed(-0.04, 1) == "0.0"
    assert numbers.fixed(-0.0) == "0.00"
    assert numbers.quantity(-0.0001) == "-0.0001"  # three significant digits: not zero
    assert numbers.percent(-0.0004) == "0.0"
    assert numbers.ratio(-0.001) == "0.00×"


def test_a_quantitys_std_has_its_means_decimal_places() -> None:
    """Outside check b56e of #56, item 9: the suite page's peak memory read ``67.1 (0.0202)``,
    a std to more places than its mean."""
    cell = numbers.mean_std_cell
    assert cell(67.1, 0.0202, shown=numbers.quantity) == "67.1 (0.0)"
    assert cell(2360.2, 1070.6, shown=numbers.quantity) == "2,360 (1,071)"
    assert cell(8.76, 0.423, shown=numbers.quantity) == "8.76 (0.42)"
    assert cell(0.0123, 0.00456, shown=numbers.quantity) == "0.0123 (0.0046)"
    assert cell(0.5, 0.0202, shown=numbers.percent) == "50.0 (2.0)"  # others as before


def test_one_rule_marks_every_table_and_page_cell() -> None:
    """Outside check b5x (brief 5c item 2): the suite's tables and the pages built a cell's
    marks each with their own rule for an empty cell; numbers.marked is the one rule."""
    marks = {" c": True, " e": False, " p": True}
    assert numbers.marked("12.5", marks) == "12.5 c p"
    assert numbers.marked(numbers.MISSING, marks) == numbers.MISSING
    assert numbers.marked("12.5", {}) == "12.5"
