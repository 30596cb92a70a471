"""Errors raised for unusable benchmark files: each names the file, line, expectation and fix."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_LISTED = 20  # bad lines of one file listed in an error; the rest are counted


def nearest(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to ``word`` (difflib's ratio at least 0.6), else None; case and
    ``-``/``_`` count for nothing (``Bi-BloSAN``, the papers' spelling, is ``bi_blosan``)."""
    by_form: dict[str, str] = {}
    for candidate in candidates:
        by_form.setdefault(_form(candidate), candidate)
    close = difflib.get_close_matches(_form(word), list(by_form), n=1, cutoff=0.6)
    return by_form[close[0]] if close else None


def _form(word: str) -> str:
    """``word`` as :func:`nearest` compares it: lower case, ``-`` as ``_``."""
    return word.lower().replace("-", "_")


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the :func:`nearest` candidate to ``word``, else ``""``: the one
    near-name rule of every message that lists names (commands, options, keys, tasks,
    encoders); here, the lowest package that lists names, for all above."""
    close = nearest(word, candidates)
    return f" (did you mean {close}?)" if close else ""


def listed_lines(numbers: list[int]) -> str:
    """``line 3, 7, ...``: the first :data:`MAX_LISTED` line numbers, for a warning."""
    shown = ", ".join(map(str, numbers[:MAX_LISTED]))
    return f"line {shown}" + (", ..." if len(numbers) > MAX_LISTED else "")


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

    The message has one line per problem, ``file:line: expected ...; found ...; fix: ...``,
    and per file a count of the bad lines not listed. ``path``, ``line``, ``expected``,
    ``found`` and ``hint`` describe the first problem; ``problems`` holds every listed one
    (of several files after :meth:`joined`).
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
        self.unlisted = {self.path: unlisted} if unlisted else {}
        super().__init__(self._message())

    def _message(self) -> str:
        lines = []
        for number, problem in enumerate(self.problems):
            lines.append(str(problem))
            following = self.problems[number + 1] if number + 1 < len(self.problems) else None
            left = self.unlisted.get(problem.path, 0)
            if left and (following is None or following.path != problem.path):
                lines.append(f"{problem.path}: ... and {left} more bad lines like these")
        return "\n".join(lines)

    @classmethod
    def joined(cls, errors: Sequence[DataFormatError]) -> DataFormatError:
        """One error listing the problems of every error in ``errors`` (of several files)."""
        first = errors[0]
        joined = cls(first.path, first.line, first.expected, first.found, first.hint)
        problems = (problem for error in errors for problem in error.problems)
        joined.problems = tuple(dict.fromkeys(problems))  # a file read twice is listed once
        joined.unlisted = {path: n for error in errors for path, n in error.unlisted.items()}
        joined.args = (joined._message(),)
        return joined


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

    def error(self) -> DataFormatError | None:
        """A :class:`DataFormatError` listing the problems (by line), or None without any."""
        if not self.listed:
            return None
        first, *more = sorted(self.listed, key=lambda problem: problem.line or 0)
        return DataFormatError(
            first.path,
            first.line,
            first.expected,
            first.found,
            first.fix,
            more=tuple(more),
            unlisted=self.count - len(self.listed),
        )

    def raise_any(self) -> None:
        """Raise :meth:`error`, if there is any problem."""
        error = self.error()
        if error is not None:
            raise error


class MissingSplitError(FileNotFoundError):
    """A split was requested whose files are not in the data folder."""

    def __init__(self, task: str, split: str, missing: list[Path], hint: str) -> None:
        self.task = task
        self.split = split
        self.missing = missing
        self.hint = hint
        names = ", ".join(str(p) for p in missing)
        super().__init__(
            f"task {task!r}: split {split!r} is not available (missing {names}). {hint}"
        )


def missing_file_error(error: MissingSplitError) -> DataFormatError:
    """``error`` as a :class:`DataFormatError`, to be listed with other files' problems."""
    expected = f"the {error.split!r} file of task {error.task!r}"
    return DataFormatError.joined(
        [
            DataFormatError(path, None, expected, "no such file", error.hint)
            for path in error.missing
        ]
    )


class EmptySplitError(ValueError):
    """A split holds no example: an empty file, or a dev set carved from too few lines, with
    ``carved`` the share of each class of train carved off (``dev_fraction``)."""

    def __init__(
        self, task: str, split: str, data_dir: Path | str, carved: float | None = None
    ) -> None:
        if carved is None:
            super().__init__(
                f"task {task!r}: the {split} split read from {data_dir} has no examples; check "
                "that its file is not empty"
            )
            return
        super().__init__(
            f"task {task!r}: the {split} split read from {data_dir} has no examples: it is "
            f"carved from the training file, a {carved * 100:g}% dev share (--data.dev_fraction "
            f"{carved}) of each class, rounded, and that is no line; give more training lines "
            "or a larger --data.dev_fraction"
        )


def shorten(text: str, limit: int = 80) -> str:
    """``repr`` of ``text`` cut to ``limit`` characters, for error messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")
