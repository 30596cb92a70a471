"""One number style for every page and table (the site's, the profile report's, the harness's
CSV and Markdown tables): Jinja filters and plain functions, and the marks they print.

Quantities (ms, MB, s) keep three significant digits; counts get thousands separators;
accuracies stored as fractions are shown in percent with one decimal; ratios as ``1.23×``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

MISSING = "–"  # a cell with no value
# what it means, said under every table that holds one (reports/site/legends.py, data stats)
MISSING_LEGEND = f"{MISSING}: no value (none set, measured or reported here, or not applicable)"
RANGE_DASH = "–"  # between the ends of a range, ``64–512``


def marked(cell: str, marks: Mapping[str, bool]) -> str:
    """``cell`` followed by each of ``marks`` that applies (in their order); a cell of no value
    (:data:`MISSING`) gets none: until 2026-11-30 a classification task's empty test_pearson
    read '– p'. The one rule of the suite's tables and the pages."""
    if cell == MISSING:
        return cell
    return cell + "".join(mark for mark, shown in marks.items() if shown)


def _value(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) or math.isinf(number) else number


def _signed(text: str) -> str:
    """``text`` without the minus sign of a value that rounded to zero (``-0.0`` -> ``0.0``)."""
    return text[1:] if text.startswith("-") and not any(c in "123456789" for c in text) else text


def quantity(value: Any) -> str:
    """``1,234``, ``123``, ``12.3``, ``1.23``, ``0.0123``: three significant digits."""
    number = _value(value)
    if number is None:
        return MISSING
    size = abs(number)
    if size >= 100:
        return _signed(f"{number:,.0f}")
    if size >= 10:
        return f"{number:.1f}"
    if size >= 1 or size == 0:
        return _signed(f"{number:.2f}")
    return f"{number:.3g}"


def count(value: Any) -> str:
    number = _value(value)
    return MISSING if number is None else _signed(f"{round(number):,}")


def percent(value: Any) -> str:
    """A fraction in [0, 1] as a percentage with one decimal."""
    number = _value(value)
    return MISSING if number is None else _signed(f"{100 * number:.1f}")


def is_accuracy(name: str) -> bool:
    """Whether a metric named ``name`` (``dev_acc``, ``value_test_acc``, ``acc``) is an
    accuracy, stored as a fraction and shown in percent."""
    return name == "acc" or name.endswith("_acc")


def score(value: Any) -> str:
    """Correlations and MSE (SICK): four decimals, as the papers print them."""
    number = _value(value)
    return MISSING if number is None else _signed(f"{number:.4f}")


def ratio(value: Any) -> str:
    number = _value(value)
    return MISSING if number is None else _signed(f"{number:.2f}×")


def fixed(value: Any, digits: int = 2) -> str:
    number = _value(value)
    return MISSING if number is None else _signed(f"{number:.{digits}f}")


def metric(name: str, value: Any) -> str:
    """A metric named ``name`` where no column header gives its unit (a study's trials, a
    console line): an accuracy in percent with ``%`` (``dev_acc 7.8%``), else :func:`text`."""
    if is_accuracy(name) and percent(value) != MISSING:
        return f"{percent(value)}%"
    return text(value)


def text(value: Any) -> str:
    """Anything for a table cell: numbers as quantities, missing as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
        return MISSING
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return count(value)
    if isinstance(value, float):
        return quantity(value)
    return str(value)


FILTERS = {
    "quantity": quantity,
    "count": count,
    "percent": percent,
    "score": score,
    "ratio": ratio,
    "fixed": fixed,
    "text": text,
}


def mean_std_cell(
    mean: Any, std: Any = None, digits: int = 1, shown: Callable[[Any], str] | None = None
) -> str:
    """``84.6 (1.6)``, every table's and page's cell of a mean over runs: ``mean`` and, in
    brackets, ``std`` when there is one (None or NaN: a single run has no spread), each written
    by ``shown`` (default :func:`fixed` to ``digits``); :data:`MISSING` without a mean. A
    :func:`quantity`'s std has its mean's decimal places (``67.1 (0.0)``, not ``67.1 (0.0202)``)."""
    if _value(mean) is None:
        return MISSING
    write = shown or functools.partial(fixed, digits=digits)
    if _value(std) is None:
        return write(mean)
    if write is quantity:
        places = len(write(mean).partition(".")[2])
        return f"{write(mean)} ({_signed(f'{_value(std):,.{places}f}')})"
    return f"{write(mean)} ({write(std)})"
