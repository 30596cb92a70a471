"""A study in the console's words: a trial's parameters and values as its trial line gives them,
and the summary ``sanbench tune`` prints once the outputs are written (``summary.json`` holds the
same, in full)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reports import numbers
from reports.study_results import (
    TIED,
    name_label,
    result_cell,
    result_label,
    result_text,
    tie_text,
)


def params_text(params: Mapping[str, Any]) -> str:
    """``n (seq_len) = 128, r (block_len) = 9``: each parameter under its page's name
    (:func:`reports.study_results.name_label`) and as its page gives it (``numbers.text``: a
    float to three significant digits)."""
    return ", ".join(f"{name_label(key)} = {numbers.text(value)}" for key, value in params.items())


def values_text(names: Sequence[str], values: Sequence[float]) -> str:
    """``dev acc (%) = 50.1, training memory (MB) = 112``: each value under its objective's
    name and in its unit as the page's trial table gives them (an accuracy in percent, else
    three significant digits)."""

    def cell(name: str, value: float) -> str:
        return numbers.percent(value) if numbers.is_accuracy(name) else numbers.metric(name, value)

    pairs = zip(names, values, strict=False)
    return ", ".join(f"{name_label(name)} = {cell(name, value)}" for name, value in pairs)


def _result_lines(results: Mapping[str, Any]) -> list[str]:
    """A study's own results as its page says them (``reports.study_results``): a scalar a
    line, a list of records one line per record."""

    def said(key: str, value: Any) -> str:
        return f"{result_label(key)} {result_cell(key, value)}"

    lines = []
    for key, value in results.items():
        if key.endswith(TIED):  # said beside its result
            continue
        if isinstance(value, list) and all(isinstance(v, Mapping) for v in value):
            lines.append(f"  {result_label(key)}:")
            lines += ["    " + ", ".join(said(k, v) for k, v in row.items()) for row in value]
        else:
            lines.append(f"  {result_label(key)}: {result_text(dict(results), key)}")
    return lines


def summary_lines(summary: Mapping[str, Any]) -> list[str]:
    """The study's trial counts, its best trial (each best of ``best_per``, or the Pareto front)
    in the words of its trial lines, and its own results, one a line."""
    counts = summary.get("trial_counts") or {}
    said = ", ".join(f"{n} {state}" for state, n in counts.items())
    lines = [f"study {summary['optuna_study']!r}: {sum(counts.values())} trial(s)"]
    lines[0] += f": {said}" if said else ""
    names = list(summary.get("objectives") or {})
    best = [
        f"trial {t['number']}: {params_text(t['params'])} -> {values_text(names, t['values'])}"
        + (f" ({tie_text(t['tied_with'])})" if t.get("tied_with") else "")
        for t in summary.get("best") or []
    ]
    if summary.get("best_per"):
        lines += [f"best per {name_label(summary['best_per'])}:", *(f"  {line}" for line in best)]
    elif len(best) > 1:
        lines += [f"Pareto front ({len(best)} trials):", *(f"  {line}" for line in best)]
    elif best:
        lines.append(f"best: {best[0]}")
    elif counts:
        lines.append("best: none (no trial completed)")
    if summary.get("results"):
        lines += ["results:", *_result_lines(summary["results"])]
    return lines
