"""A plain table (title, header, string cells, notes) written as CSV and Markdown: the suite's
tables, and the reproduction's (``harness.reproduce`` builds on the suite and imports it here).

HTML is rendered by ``sanbench report`` (reports/), which reads these CSV files.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from reports.contracts.atomic import write_text_atomic
from reports.numbers import MISSING, MISSING_LEGEND


@dataclass
class Table:
    """A rendered-ready table: every cell is already a string."""

    name: str
    title: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows(self.rows)
        return buffer.getvalue()

    def to_markdown(self) -> str:
        def line(cells: list[str]) -> str:
            return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

        parts = [f"### {self.title}", "", line(self.header)]
        parts.append("|" + "|".join(["---"] + ["---:"] * (len(self.header) - 1)) + "|")
        parts.extend(line(row) for row in self.rows)
        if any(cell == MISSING for row in self.rows for cell in row):  # as every page says it
            parts.extend(["", f"{MISSING_LEGEND}."])
        parts.extend(["", *(f"- {note}" for note in self.notes)] if self.notes else [])
        return "\n".join(parts) + "\n"


def write_tables(tables: list[Table], folder: Path, title: str) -> list[Path]:
    """Each table as ``NAME.csv`` and ``NAME.md``, plus all of them in ``tables.md``."""
    written = []
    for table in tables:
        for suffix, text in (("csv", table.to_csv()), ("md", table.to_markdown())):
            path = folder / f"{table.name}.{suffix}"
            write_text_atomic(path, text)
            written.append(path)
    markdown = f"# {title}\n\n" + "\n".join(table.to_markdown() for table in tables)
    write_text_atomic(folder / "tables.md", markdown)
    return [*written, folder / "tables.md"]
