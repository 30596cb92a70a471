"""A user's task files (a task file, :mod:`datamodules.task_file`): CSV or TSV with a header
row, or JSON lines; the columns the task file names hold the sentence(s) and the label."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from datamodules.errors import Problems, listed_lines, shorten
from datamodules.readers.base import FIX, Example, Layout, SplitData
from datamodules.readers.sick import parse_score
from datamodules.task_spec import TableSource, TaskSpec
from datamodules.text import read_lines

Record = dict[str, object]


def _repeated(header: list[str]) -> str:
    """``'text' in columns 1 and 3, ...``: the names ``header`` holds more than once."""
    columns: dict[str, list[int]] = {}
    for number, name in enumerate(header, start=1):
        columns.setdefault(name, []).append(number)
    return ", ".join(
        f"{name!r} in columns {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"
        for name, numbers in columns.items()
        if len(numbers) > 1
    )


def _delimited(
    lines: list[str], delimiter: str, path: Path, problems: Problems
) -> Iterator[tuple[int, Record]]:
    """(first line, record) of each row of a file with a header row of distinct names (spaces
    around a name are not part of it). TSV has no quoting (a quote is text); CSV quotes as
    Excel does, a line break inside quotes included (the reader sees each line with its end).
    A blank line (spaces only) is no row and is
    skipped, as pandas skips it; rows with another column count than the header are bad."""
    quoting = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
    ended = (line + "\n" for line in lines)
    reader = csv.reader(ended, delimiter=delimiter, quoting=quoting, strict=True)
    try:
        header = [name.strip() for name in next(reader)]  # "text, label" names "label"
    except StopIteration:
        problems.add(1, "a header row naming the columns", "an empty file", "add the header")
        return
    except csv.Error as error:
        problems.add(1, "a header row naming the columns", str(error), "correct the header")
        return
    repeated = _repeated(header)
    if repeated:
        problems.add(
            1,
            "a header row of distinct column names",
            repeated,
            "rename or delete the repeated column (only one can be read)",
        )
        return
    while True:
        first = reader.line_num + 1  # a quoted line break makes a row of several lines
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:  # e.g. an unclosed quote
            through = f" (lines {first}-{reader.line_num})" if reader.line_num > first else ""
            problems.add(first, "a CSV row", f"{error}{through}", FIX)
            continue
        if reader.line_num == first and not lines[first - 1].strip():
            continue  # a blank line (spaces and tabs only); ``,`` is a row of empty fields
        if len(row) != len(header):
            problems.add(
                first,
                f"{len(header)} columns like the header",
                f"{len(row)} in {shorten(lines[first - 1])}",
                FIX + " (a delimiter inside a sentence? quote it, or use another format)",
            )
            continue
        yield first, dict(zip(header, row, strict=True))


class _RepeatedKeyError(ValueError):
    """A JSON object holding a key twice (JSON keeps the last value without a word)."""


def _distinct_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``json.loads``' object of ``pairs``; :class:`_RepeatedKeyError` naming a repeated key."""
    record = dict(pairs)
    if len(record) < len(pairs):
        keys = [key for key, _ in pairs]
        raise _RepeatedKeyError(", ".join(repr(k) for k in record if keys.count(k) > 1))
    return record


def _jsonl(lines: list[str], problems: Problems) -> Iterator[tuple[int, Record]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():  # a blank line is no record (as in CSV and TSV)
            continue
        try:
            record = json.loads(line, object_pairs_hook=_distinct_keys)
        except json.JSONDecodeError:
            record = None
        except _RepeatedKeyError as error:
            found = f"the key {error} more than once"
            problems.add(number, "a JSON object of distinct keys", found, "keep one value per key")
            continue
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


def _label_text(value: object, kind: str) -> str | None:
    """A record's label as text: a string as it is (stripped), a JSON integer in decimal, for a
    relatedness score any JSON number; None for what would be read as a label other than it is
    written (``true`` is not ``"True"``, ``1.0`` is not ``1``; null, a list, an object)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int) or (isinstance(value, float) and kind == "relatedness"):
        return str(value)
    return None


def training_labels(source: TableSource, kind: str) -> tuple[str, ...]:
    """The distinct labels of the training file, numerically sorted when all are integers,
    else alphabetically (the class order of a task file without ``labels``). A file whose
    rows cannot be read at all raises its problems (their cause, not "too few labels")."""
    path = source.path(source.files[0][0])
    problems = Problems(path)  # the file's bad lines are reported when it is read
    rows = [record for _, record in records(source, path, None, problems)]
    if not rows:  # no row could be read (a header of repeated names, ...): that is the cause
        problems.raise_any()
    found = {_label_text(record.get(source.label, ""), kind) for record in rows} - {"", None}
    numeric = all(label.lstrip("-").isdigit() for label in found)
    return tuple(sorted(found, key=int if numeric else str))


def _json(value: object) -> str:
    """A value for a message: a string quoted, JSON's others as JSON writes them (``true``)."""
    return shorten(value) if isinstance(value, str) else json.dumps(value)[:80]


def _mixed_types(path: Path, lines: dict[str, list[int]], column: str, problems: Problems) -> None:
    """One problem when a file's labels are both JSON strings and integers (``"1"`` beside
    ``1``): naming the lines of the rarer type."""
    if len(lines) < 2:
        return
    rare, common = sorted(lines, key=lambda kind: len(lines[kind]))
    numbers = lines[rare]
    problems.add(
        None,
        f"labels of one JSON type in column {column!r} (all strings or all integers)",
        f"{len(numbers)} {rare} labels ({listed_lines(numbers)}) among {common} ones",
        f"write every label of {path.name} alike",
    )


def read_table_file(task: TaskSpec, path: Path, encoding: str | None) -> list[Example]:
    """Every row of one of a task file's files as an :class:`Example`; all bad lines listed.
    Sentences are JSON strings, labels strings or integers of one type per file (a relatedness
    score any number): a value of another type is a bad line, never read as its ``str``."""
    source = task.table
    assert source is not None
    problems = Problems(path)
    columns = [source.text, *([source.text_pair] if source.text_pair else []), source.label]
    examples = []
    label_lines: dict[str, list[int]] = {}  # JSON type of the class labels -> lines
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
        sentences = [source.text, *([source.text_pair] if source.text_pair else [])]
        not_text = [column for column in sentences if not isinstance(record[column], str)]
        for column in not_text:
            problems.add(
                number,
                f"a sentence (a JSON string) in column {column!r}",
                _json(record[column]),
                FIX,
            )
        raw = record[source.label]
        label_text = _label_text(raw, task.kind)
        label: int | float | None
        if task.kind == "relatedness":
            label = None if label_text is None else parse_score(label_text)
            expected = f"a score in [1, 5] in column {source.label!r}"
        else:
            label = task.labels.index(label_text) if label_text in task.labels else None
            expected = f"a label in {', '.join(task.labels)} in column {source.label!r}"
            if label_text is None:
                expected += " (a JSON string or integer)"
            else:
                kind = "string" if isinstance(raw, str) else "integer"
                label_lines.setdefault(kind, []).append(number)
        if label is None:
            found = "an empty label" if label_text == "" else _json(raw)
            fix = FIX if task.kind == "relatedness" else FIX + ", or list the label under labels:"
            problems.add(number, expected, found, fix)
            continue
        if not_text:
            continue
        text = tuple(str(record[source.text]).split())
        pair = tuple(str(record[source.text_pair]).split()) if source.text_pair else None
        examples.append(Example(text, label, pair, source=(path, number)))
    _mixed_types(path, label_lines, source.label, problems)
    problems.raise_any()
    return examples


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    source = task.table
    return None if source is None else {s: (source.path(s),) for s, _ in source.files}


def _read(task: TaskSpec, split: str, files: tuple[Path, ...], encoding: str | None) -> SplitData:
    return SplitData(split, read_table_file(task, files[0], encoding), files)


LAYOUT = Layout("task-file", _files, _read)
