"""Errors raised for unusable benchmark files: each names the file, line, expectation and fix."""

from __future__ import annotations

from pathlib import Path


class DataFormatError(ValueError):
    """A data or vectors file does not have the expected format.

    The message names the file, the 1-based line number (when there is one), what was
    expected, what was found and what to do about it.
    """

    def __init__(
        self,
        path: Path | str,
        line: int | None,
        expected: str,
        found: str,
        hint: str,
    ) -> None:
        self.path = Path(path)
        self.line = line
        self.expected = expected
        self.found = found
        self.hint = hint
        where = f"{self.path}" if line is None else f"{self.path}, line {line}"
        super().__init__(f"{where}: expected {expected}; found {found}. {hint}")


class MissingSplitError(FileNotFoundError):
    """A split was requested whose files are not in the data folder."""

    def __init__(self, task: str, split: str, missing: list[Path], hint: str) -> None:
        self.task = task
        self.split = split
        self.missing = missing
        names = ", ".join(str(p) for p in missing)
        super().__init__(
            f"task {task!r}: split {split!r} is not available (missing {names}). {hint}"
        )


class EmptySplitError(ValueError):
    """A split holds no example (an empty file, or a dev set carved from too few lines)."""

    def __init__(self, task: str, split: str, data_dir: Path | str) -> None:
        super().__init__(
            f"task {task!r}: the {split} split read from {data_dir} has no examples; check that "
            "its file is not empty and, for a dev set carved from train (TREC, the CV tasks), "
            "that the training file has enough lines for a 10% dev share (or set dev_fraction)"
        )


def shorten(text: str, limit: int = 80) -> str:
    """``repr`` of ``text`` cut to ``limit`` characters, for error messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")
