"""The table ``sanbench data stats`` prints: one row per split of a task's files."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

    from datamodules.stats import SplitStats


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name}: {count}" for name, count in counts.items()) or "none"


def stats_table(title: str, splits: list[SplitStats], missing: str, legend: str) -> Table:
    """The table; a cell with no value (coverage without word vectors) reads ``missing``, and
    ``legend``, what that means, is its caption when a cell holds it."""
    from rich.table import Table

    table = Table(title=title)
    columns = ("split", "examples", "labels", "dropped", "empty", "len mean±std")
    for column in (*columns, "p50/p90/p95/p99/max", "coverage"):
        table.add_column(column, justify="left" if column in ("split", "labels") else "right")
    for s in splits:
        if s.missing:
            table.add_row(s.split, "missing", f"looked for {', '.join(s.files)}")
            continue
        n = s.length
        table.add_row(
            s.split,
            str(s.examples),
            _counts(s.labels),
            _counts(s.dropped),
            str(s.empty_sentences),
            f"{n['mean']:.2f}±{n['std']:.2f}",
            "/".join(f"{n[k]:g}" for k in ("p50", "p90", "p95", "p99", "max")),
            missing if s.coverage is None else f"{s.coverage:.2%}",
        )
    if any(s.coverage is None and not s.missing for s in splits):
        table.caption = legend
    return table
