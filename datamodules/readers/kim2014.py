"""Kim (2014) packaging: ``LABEL tokenized sentence`` per line (``stsa.*``, ``TREC.*.all``, ...)."""

from __future__ import annotations

from pathlib import Path

from datamodules.errors import Problems, shorten
from datamodules.readers.base import Example, Layout, SplitData, Tokens, class_index
from datamodules.task_spec import TaskSpec
from datamodules.text import read_lines

NAME = "kim2014"


def parse_line(line: str) -> tuple[str, Tokens]:
    """Split ``LABEL tok tok ...`` into the label string and the sentence tokens."""
    parts = line.split()
    return (parts[0] if parts else ""), tuple(parts[1:])


def read_label_file(task: TaskSpec, path: Path, encoding: str | None = None) -> list[Example]:
    """Every line of a ``LABEL sentence`` file as an :class:`Example`; all bad lines listed."""
    examples = []
    problems = Problems(path)
    allowed = f"0..{task.num_classes - 1}"
    for number, line in enumerate(read_lines(path, encoding, problems), start=1):
        label, tokens = parse_line(line)
        index = class_index(task, label)
        if index is None:
            found = "an empty line" if not label else f"label {label!r} in {shorten(line)}"
            problems.add(
                number,
                f"'LABEL sentence' with LABEL in {allowed} for task {task.name}",
                found,
                "correct or delete the line, or check that --task matches the file",
            )
            continue
        examples.append(Example(tokens, index, source=(path, number)))
    problems.raise_any()
    return examples


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    return task.release_files(NAME, root)


def _read(task: TaskSpec, split: str, files: tuple[Path, ...], encoding: str | None) -> SplitData:
    return SplitData(split, read_label_file(task, files[0], encoding), files)


LAYOUT = Layout(NAME, _files, _read)
