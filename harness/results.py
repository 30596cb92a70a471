"""Append-only CSV results that survive crashes and resume without duplicates.

Every row is written and flushed as soon as it is measured; a row is identified by its key
columns, so a resumed run skips keys already present. A torn last line (the process died
mid-write) is dropped on the next open.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


class ResultsFile:
    """A CSV file of result rows keyed by ``key_columns``."""

    def __init__(self, path: Path, key_columns: Iterable[str]):
        self.path = Path(path)
        self.key_columns = tuple(key_columns)
        self._repair_torn_tail()

    def _repair_torn_tail(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            self.path.write_bytes(data[: data.rfind(b"\n") + 1])

    def _header(self) -> list[str]:
        if not self.path.exists():
            return []
        with self.path.open(newline="") as handle:
            return next(csv.reader(handle), [])

    def rows(self) -> list[dict[str, str]]:
        if not self.path.exists():
            return []
        with self.path.open(newline="") as handle:
            return list(csv.DictReader(handle))

    def key(self, row: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(str(row[column]) for column in self.key_columns)

    def done_keys(self) -> set[tuple[str, ...]]:
        return {self.key(row) for row in self.rows()}

    def append(self, row: Mapping[str, Any]) -> None:
        """Append one row (header on first write), flushed and fsynced before returning."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = self._header()
        fieldnames = header or list(row.keys())
        missing = [name for name in row if name not in fieldnames]
        if missing:
            raise ValueError(f"{self.path}: row has columns not in the file's header: {missing}")
        new_file = not header
        with self.path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fieldnames)
            if new_file:
                writer.writeheader()
            writer.writerow({name: row.get(name, "") for name in fieldnames})
            handle.flush()
            os.fsync(handle.fileno())
