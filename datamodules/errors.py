"""Errors raised for unusable benchmark files: each names the file, line, expectation and fix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_LISTED = 20  # bad lines of one file listed in an error; the rest are counted


@dataclass(frozen=True)
class Problem:
    """One bad line (``line`` is 1-based, ``None`` for the file as a whole)."""

    path: Path
    line: int | None
    expected: str
    found: str
    fix: str

    def __str__(self) -> str:
        where = f"{self.path}" if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: expected {self.expected}; found {self.found}; fix: {self.fix}"


class DataFormatError(ValueError):
    """A data or vectors file does not have the expected format.

    The message has one line per problem, ``file:line: expected ...; found ...; fix: ...``.
    ``path``, ``line``, ``expected``, ``found`` and ``hint`` describe the first problem.
    """

    def __init__(
        self,
        path: Path | str,
        line: int | None,
        expected: str,
        found: str,
        hint: str,
        *,
        more: tuple[Problem, ...] = (),
        unlisted: int = 0,
    ) -> None:
        self.path = Path(path)
        self.line = line
        self.expected = expected
        self.found = found
        self.hint = hint
        self.problems = (Problem(self.path, line, expected, found, hint), *more)
        lines = [str(problem) for problem in self.problems]
        if unlisted:
            lines.append(f"{self.path}: ... and {unlisted} more bad lines like these")
        super().__init__("\n".join(lines))


class Problems:
    """The bad lines of one file, collected so that one error lists them all (up to a cap)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.listed: list[Problem] = []
        self.count = 0

    def add(self, line: int | None, expected: str, found: str, fix: str) -> None:
        self.count += 1
        if len(self.listed) < MAX_LISTED:
            self.listed.append(Problem(self.path, line, expected, found, fix))

    def raise_any(self) -> None:
        """Raise a :class:`DataFormatError` listing the problems, if there is any."""
        if self.listed:
            first, *more = self.listed
            raise DataFormatError(
                first.path,
                first.line,
                first.expected,
                first.found,
                first.fix,
                more=tuple(more),
                unlisted=self.count - len(self.listed),
            )


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
