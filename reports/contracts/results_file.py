"""Append-only CSV results that survive crashes and resume without duplicates.

Every row is written and flushed as soon as it is measured; a row is identified by its key
columns, so a resumed run skips keys already present. One process writes a file; any number
may read it meanwhile. Readers never change a file: they ignore a torn last line (its writer
died, or is still writing it). The writer drops a torn last line of its own file before its
first append.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from reports.contracts.atomic import write_text_atomic


def complete_bytes(path: Path) -> bytes:
    """``path``'s bytes up to its last line break (b"" when missing): no torn last line."""
    data = path.read_bytes() if path.exists() else b""
    return data[: data.rfind(b"\n") + 1]


def complete_text(path: Path) -> str:
    """The UTF-8 text of ``path`` without a torn last line."""
    return complete_bytes(path).decode("utf-8")


class ResultsFile:
    """A CSV file of result rows keyed by ``key_columns``.

    Reading (:meth:`rows`) is safe on a file another process is writing; :meth:`append` is
    for the one process that owns the file.
    """

    def __init__(self, path: Path, key_columns: Iterable[str]):
        self.path = Path(path)
        self.key_columns = tuple(key_columns)
        self._tail_checked = False

    def rows(self) -> list[dict[str, str]]:
        """Every complete row (a torn last line is left out, and left in the file)."""
        return list(csv.DictReader(io.StringIO(complete_text(self.path), newline="")))

    def key(self, row: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(str(row[column]) for column in self.key_columns)

    def done_keys(self) -> set[tuple[str, ...]]:
        return {self.key(row) for row in self.rows()}

    def _header(self) -> list[str]:
        if not self.path.exists():
            return []
        with self.path.open(newline="", encoding="utf-8") as handle:
            return next(csv.reader(handle), [])

    def _drop_torn_tail(self) -> None:
        """Cut a torn last line, left when this file's writer (an earlier run of ours) died."""
        if self.path.exists():
            complete = len(complete_bytes(self.path))
            if complete < self.path.stat().st_size:
                os.truncate(self.path, complete)
        self._tail_checked = True

    def _widen(self, header: list[str], new: list[str]) -> list[str]:
        """Rewrite the file with ``new`` columns after ``header`` (old rows leave them empty),
        by rename: a reader sees the old file or the new one. Returns the new header."""
        fieldnames = [*header, *new]
        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=fieldnames)
        writer.writeheader()
        writer.writerows(self.rows())
        write_text_atomic(self.path, text.getvalue())
        return fieldnames

    def append(self, row: Mapping[str, Any]) -> None:
        """Append one row (header on first write), flushed and fsynced before returning. A row
        with columns the file's header lacks (a file begun by an older sanbench) widens it.

        Only the process that owns the file may call this: its first call repairs a torn tail.
        """
        if not self._tail_checked:
            self._drop_torn_tail()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = self._header()
        fieldnames = header or list(row.keys())
        missing = [name for name in row if name not in fieldnames]
        if missing:  # a file an older sanbench began: its rows gain the new columns, empty
            fieldnames = self._widen(header, missing)
        with self.path.open("a", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=fieldnames)
            if not header:
                writer.writeheader()
            writer.writerow({name: row.get(name, "") for name in fieldnames})
            handle.flush()
            os.fsync(handle.fileno())
