"""A user's task files (a task file, :mod:`datamodules.task_file`): CSV or TSV with a header
row, or JSON lines; the columns the task file names hold the sentence(s) and the label."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from datamodules.errors import Problems, shorten
from datamodules.readers.base import Example, Layout, SplitData
from datamodules.readers.sick import parse_score
from datamodules.task_spec import TableSource, TaskSpec
from datamodules.text import read_lines

FIX = "correct or delete the line"
Record = dict[str, object]


def _delimited(
    lines: list[str], delimiter: str, path: Path, problems: Problems
) -> Iterator[tuple[int, Record]]:
    """(line, record) of each row of a file with a header row. TSV has no quoting (a quote is
    text); CSV quotes as Excel does. Rows with another column count than the header are bad."""
    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    reader = csv.reader(lines, delimiter=delimiter, quoting=quoting, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        problems.add(1, "a header row naming the columns", "an empty file", "add the header")
        return
    except csv.Error as error:
        problems.add(1, "a header row naming the columns", str(error), "correct the header")
        return
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:  # e.g. an unclosed quote
            problems.add(reader.line_num, "a CSV row", str(error), FIX)
            continue
        if len(row) != len(header):
            problems.add(
                reader.line_num,
                f"{len(header)} columns like the header",
                f"{len(row)} in {shorten(lines[reader.line_num - 1])}",
                FIX + " (a delimiter inside a sentence? quote it, or use another format)",
            )
            continue
        yield reader.line_num, dict(zip(header, row, strict=True))


def _jsonl(lines: list[str], problems: Problems) -> Iterator[tuple[int, Record]]:
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            problems.add(number, "a JSON object", shorten(line), FIX)
            continue
        yield number, record


def records(
    source: TableSource, path: Path, encoding: str | None, problems: Problems
) -> Iterator[tuple[int, Record]]:
    """(line, record) of every well-formed row of ``path``; the others go to ``problems``."""
    lines = read_lines(path, encoding, problems)
    if source.format == "jsonl":
        return _jsonl(lines, problems)
    return _delimited(lines, "\t" if source.format == "tsv" else ",", path, problems)


def training_labels(source: TableSource) -> tuple[str, ...]:
    """The distinct labels of the training file, numerically sorted when all are integers,
    else alphabetically (the class order of a task file without ``labels``)."""
    path = source.path(source.files[0][0])
    rows = records(source, path, None, Problems(path))  # its problems: reported when read
    found = {str(record.get(source.label, "")).strip() for _, record in rows} - {""}
    numeric = all(label.lstrip("-").isdigit() for label in found)
    return tuple(sorted(found, key=int if numeric else str))


def read_table_file(task: TaskSpec, path: Path, encoding: str | None) -> list[Example]:
    """Every row of one of a task file's files as an :class:`Example`; all bad lines listed."""
    source = task.table
    assert source is not None
    problems = Problems(path)
    columns = [source.text, *([source.text_pair] if source.text_pair else []), source.label]
    examples = []
    for number, record in records(source, path, encoding, problems):
        missing = [column for column in columns if column not in record]
        if missing:
            problems.add(
                number,
                f"the column(s) {', '.join(columns)} the task file names",
                f"no {', '.join(missing)} among {', '.join(map(str, record))}",
                "name the file's columns in the task file (text, text_pair, label)",
            )
            continue
        label_text = str(record[source.label]).strip()
        label: int | float | None
        if task.kind == "relatedness":
            label = parse_score(label_text)
            expected = f"a score in [1, 5] in column {source.label!r}"
        else:
            label = task.labels.index(label_text) if label_text in task.labels else None
            expected = f"a label in {', '.join(task.labels)} in column {source.label!r}"
        if label is None:
            found = "an empty label" if not label_text else shorten(label_text)
            problems.add(number, expected, found, FIX + ", or list the label under labels:")
            continue
        text = tuple(str(record[source.text]).split())
        pair = tuple(str(record[source.text_pair]).split()) if source.text_pair else None
        examples.append(Example(text, label, pair, source=(path, number)))
    problems.raise_any()
    return examples


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    source = task.table
    return None if source is None else {s: (source.path(s),) for s, _ in source.files}


def _read(task: TaskSpec, split: str, files: tuple[Path, ...], encoding: str | None) -> SplitData:
    return SplitData(split, read_table_file(task, files[0], encoding), files)


LAYOUT = Layout("task-file", _files, _read)
