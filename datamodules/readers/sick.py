"""SICK (SemEval 2014 task 1) as distributed: tab-separated with a header row."""

from __future__ import annotations

import math
from pathlib import Path

from datamodules.errors import Problems, shorten
from datamodules.readers.base import Example, Layout, SplitData
from datamodules.task_spec import TaskSpec
from datamodules.text import read_lines

NAME = "sick"
REQUIRED = ("sentence_A", "sentence_B", "relatedness_score")


def parse_score(text: str) -> float | None:
    """The relatedness score if ``text`` is a finite number in [1, 5], else ``None``."""
    try:
        score = float(text)
    except ValueError:
        return None
    return score if math.isfinite(score) and 1.0 <= score <= 5.0 else None


def read_sick_file(path: Path, encoding: str | None = None) -> list[Example]:
    """Pairs and relatedness scores of one SICK file (CRLF and BOM tolerated)."""
    problems = Problems(path)
    lines = read_lines(path, encoding, problems)
    header = lines[0].split("\t") if lines else []
    if any(column not in header for column in REQUIRED):
        problems.add(
            1,
            f"a tab-separated header with columns {', '.join(REQUIRED)}",
            shorten(lines[0]) if lines else "an empty file",
            "use the SICK file as distributed (header row first)",
        )
        problems.raise_any()
    a, b, score_col = (header.index(column) for column in REQUIRED)
    examples = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            problems.add(
                number,
                f"{len(header)} tab-separated columns like the header",
                f"{len(fields)} in {shorten(line)}",
                "correct the line (a tab inside a sentence?) or delete it",
            )
            continue
        score = parse_score(fields[score_col])
        if score is None:
            problems.add(
                number,
                "a relatedness_score in [1, 5]",
                shorten(line),
                "correct the line or delete it",
            )
            continue
        pair = tuple(fields[a].split()), score, tuple(fields[b].split())
        examples.append(Example(*pair, source=(path, number)))
    problems.raise_any()
    return examples


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    return task.release_files(NAME, root)


def _read(task: TaskSpec, split: str, files: tuple[Path, ...], encoding: str | None) -> SplitData:
    return SplitData(split, read_sick_file(files[0], encoding), files)


LAYOUT = Layout(NAME, _files, _read)
