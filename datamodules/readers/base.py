"""What every reader returns, and the layout interface the detector walks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from datamodules.task_spec import TaskSpec

FIX = "correct or delete the line"  # the advice after a line that cannot be read

Tokens = tuple[str, ...]


@dataclass(frozen=True)
class Example:
    """One example: tokens of sentence ``a`` (and ``b`` for pairs) and its label.

    ``label`` is a class index, or the relatedness score in [1, 5] for SICK. ``source`` is
    the file and 1-based line it was read from (for error messages; not compared).
    """

    a: Tokens
    label: int | float
    b: Tokens | None = None
    source: tuple[Path, int] | None = field(default=None, compare=False, repr=False)


@dataclass
class SplitData:
    """The examples of one file split, the files read and the documented drops by reason."""

    name: str
    examples: list[Example]
    files: tuple[Path, ...]
    dropped: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Layout:
    """A way of packaging benchmark files.

    ``files(task, root)`` maps each source split of ``task`` to the files it needs under
    ``root`` (they may not exist), or returns ``None`` when the layout lacks the task;
    ``read(task, split, files, encoding)`` parses them (``encoding`` None: see
    :func:`datamodules.text.read_lines`).
    """

    name: str
    files: Callable[[TaskSpec, Path], dict[str, tuple[Path, ...]] | None]
    read: Callable[[TaskSpec, str, tuple[Path, ...], str | None], SplitData]


def class_index(task: TaskSpec, label: str) -> int | None:
    """Index of ``label`` when it is a digit string in ``0..num_classes-1``, else ``None``."""
    if label.isdigit() and int(label) < task.num_classes and str(int(label)) == label:
        return int(label)
    return None
