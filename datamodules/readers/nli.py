"""SNLI / MultiNLI: ``*_1.0_{split}.jsonl`` and ``.txt`` as distributed, and s1/s2/labels files.

Tokens come from the ``sentence{1,2}_binary_parse`` fields with the brackets removed (the
parses are tokenized; the raw ``sentence1`` is not). Pairs whose gold label is ``-``
(no annotator majority) are dropped and counted: the only drop in the whole package.
"""

from __future__ import annotations

import json
from pathlib import Path

from datamodules.errors import DataFormatError, Problems, shorten
from datamodules.readers.base import FIX, Example, Layout, SplitData, Tokens
from datamodules.task_spec import TaskSpec
from datamodules.text import read_lines

NO_GOLD = "no gold label ('-')"
JSONL_NAME, TXT_NAME = "snli-jsonl", "snli-txt"


def parse_label(task: TaskSpec, label: str) -> int | None:
    """Class index of an NLI label; ``None`` for ``-``; ``ValueError`` for anything else."""
    label = label.strip()
    if label == "-":
        return None
    if label not in task.labels:
        raise ValueError(label)
    return task.labels.index(label)


def parse_tree(parse: str) -> Tokens:
    """Tokens of a bracketed binary parse such as ``( ( A dog ) runs )``."""
    return tuple(token for token in parse.split() if token not in ("(", ")"))


def _collect(task: TaskSpec, path: Path, rows: list[tuple[int, str, str, str]]) -> list[Example]:
    """Examples from (line, gold label, parse 1, parse 2) rows; '-' labels skipped."""
    examples = []
    problems = Problems(path)
    for number, label, parse_a, parse_b in rows:
        try:
            index = parse_label(task, label)
        except ValueError:
            expected = f"gold_label in {', '.join(task.labels)} or '-'"
            problems.add(number, expected, shorten(label), FIX)
            continue
        if index is not None:
            pair = parse_tree(parse_a), index, parse_tree(parse_b)
            examples.append(Example(*pair, source=(path, number)))
    problems.raise_any()
    return examples


def _split_data(split: str, path: Path, examples: list[Example], rows: int) -> SplitData:
    dropped = {NO_GOLD: rows - len(examples)} if rows > len(examples) else {}
    return SplitData(split, examples, (path,), dropped)


def read_jsonl(task: TaskSpec, split: str, path: Path, encoding: str | None) -> SplitData:
    """One ``*_1.0_{split}.jsonl`` file."""
    rows = []
    problems = Problems(path)
    keys = ("gold_label", "sentence1_binary_parse", "sentence2_binary_parse")
    for number, line in enumerate(read_lines(path, encoding, problems), start=1):
        try:
            record = json.loads(line)
            rows.append((number, *(str(record[key]) for key in keys)))
        except (json.JSONDecodeError, KeyError, TypeError):
            problems.add(number, f"a JSON object with {', '.join(keys)}", shorten(line), FIX)
    problems.raise_any()
    return _split_data(split, path, _collect(task, path, rows), len(rows))


def read_txt(task: TaskSpec, split: str, path: Path, encoding: str | None) -> SplitData:
    """One ``*_1.0_{split}.txt`` file (tab-separated, header row)."""
    problems = Problems(path)
    lines = read_lines(path, encoding, problems)
    header = lines[0].split("\t") if lines else []
    keys = ("gold_label", "sentence1_binary_parse", "sentence2_binary_parse")
    if any(key not in header for key in keys):
        found = shorten(lines[0]) if lines else "an empty file"
        expected = f"a tab-separated header with {', '.join(keys)}"
        problems.add(1, expected, found, "use the file as distributed")
        problems.raise_any()
    columns = [header.index(key) for key in keys]
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(header):
            expected = f"{len(header)} tab-separated columns"
            problems.add(number, expected, f"{len(fields)} in {shorten(line)}", FIX)
            continue
        rows.append((number, *(fields[c] for c in columns)))
    problems.raise_any()
    return _split_data(split, path, _collect(task, path, rows), len(rows))


def read_s1_s2_labels(
    task: TaskSpec, split: str, files: tuple[Path, ...], encoding: str | None
) -> SplitData:
    """SentEval/InferSent ``s1.SPLIT``, ``s2.SPLIT``, ``labels.SPLIT``: one item a line."""
    s1, s2, labels = (read_lines(path, encoding) for path in files)
    if not len(s1) == len(s2) == len(labels):
        counts = ", ".join(
            f"{p.name}: {len(x)}" for p, x in zip(files, (s1, s2, labels), strict=True)
        )
        raise DataFormatError(
            files[2],
            None,
            "s1, s2 and labels files with the same number of lines",
            counts,
            "regenerate the three files together",
        )
    rows = [
        (i, lab, a, b) for i, (a, b, lab) in enumerate(zip(s1, s2, labels, strict=True), start=1)
    ]
    examples = _collect(task, files[2], rows)
    dropped = {NO_GOLD: len(rows) - len(examples)} if len(rows) > len(examples) else {}
    return SplitData(split, examples, files, dropped)


def _files(name: str):
    def files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
        return task.release_files(name, root)

    return files


JSONL = Layout(JSONL_NAME, _files(JSONL_NAME), lambda t, s, f, e: read_jsonl(t, s, f[0], e))
TXT = Layout(TXT_NAME, _files(TXT_NAME), lambda t, s, f, e: read_txt(t, s, f[0], e))
