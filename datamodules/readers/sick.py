"""SICK (SemEval 2014 task 1) as distributed: tab-separated with a header row."""

from __future__ import annotations

import math
from pathlib import Path

from datamodules.errors import DataFormatError, shorten
from datamodules.readers.base import Example, Layout, SplitData
from datamodules.tasks import TaskSpec
from datamodules.text import read_lines

FILES = {"train": "SICK_train.txt", "trial": "SICK_trial.txt", "test": "SICK_test_annotated.txt"}
REQUIRED = ("sentence_A", "sentence_B", "relatedness_score")


def parse_score(text: str) -> float | None:
    """The relatedness score if ``text`` is a finite number in [1, 5], else ``None``."""
    try:
        score = float(text)
    except ValueError:
        return None
    return score if math.isfinite(score) and 1.0 <= score <= 5.0 else None


def read_sick_file(path: Path) -> list[Example]:
    """Pairs and relatedness scores of one SICK file (CRLF and BOM tolerated)."""
    lines = read_lines(path)
    header = lines[0].split("\t") if lines else []
    if any(column not in header for column in REQUIRED):
        raise DataFormatError(
            path,
            1,
            f"a tab-separated header with columns {', '.join(REQUIRED)}",
            shorten(lines[0]) if lines else "an empty file",
            "Use the SICK file as distributed (header row first).",
        )
    a, b, score_col = (header.index(column) for column in REQUIRED)
    examples = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            raise DataFormatError(
                path,
                number,
                f"{len(header)} tab-separated columns like the header",
                f"{len(fields)} in {shorten(line)}",
                "Fix the line (a tab inside a sentence?) or remove it.",
            )
        score = parse_score(fields[score_col])
        tokens_a, tokens_b = tuple(fields[a].split()), tuple(fields[b].split())
        if score is None:
            raise DataFormatError(
                path,
                number,
                "a relatedness_score in [1, 5]",
                shorten(line),
                "Fix the line or remove it.",
            )
        examples.append(Example(tokens_a, score, tokens_b))
    return examples


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    return {s: (root / n,) for s, n in FILES.items()} if task.name == "sick" else None


def _read(task: TaskSpec, split: str, files: tuple[Path, ...]) -> SplitData:
    return SplitData(split, read_sick_file(files[0]), files)


LAYOUT = Layout("sick", _files, _read)
