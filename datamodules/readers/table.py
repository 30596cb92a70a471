"""A user's task files (a task file, :mod:`datamodules.task_file`): CSV or TSV with a header
row, or JSON lines; the columns the task file names hold the sentence(s) and the label."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from datamodules.errors import Problems, listed_lines, nearest, shorten
from datamodules.readers.base import FIX, Example, Layout, SplitData
from datamodules.readers.sick import parse_score
from datamodules.task_spec import TableSource, TaskSpec
from datamodules.text import marked_encoding, read_lines

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


def _named(source: TableSource) -> dict[str, str]:
    """The columns the task file names -> the key naming each (``{"review": "text", ...}``)."""
    keys = {"text": source.text, "text_pair": source.text_pair, "label": source.label}
    return {column: key for key, column in keys.items() if column is not None}


def _column_missing(source: TableSource, column: str, present: list[str]) -> tuple[str, str]:
    """(found, fix) of a problem naming ``column``, which the task file names and the file
    lacks, with the columns ``present`` and the nearest of them."""
    key, task_file = _named(source)[column], source.task_file.name
    near = nearest(column, present)
    fix = (
        f"write {key}: {near} in {task_file}"
        if near
        else f"name one of them under {key}: in {task_file}"
    )
    noun = "key" if source.format == "jsonl" else "column"
    return ", ".join(present) or "none", f"{fix}, or rename the file's {noun}"


def _delimited(
    lines: list[str], delimiter: str, source: TableSource, problems: Problems
) -> Iterator[tuple[int, Record]]:
    """(first line, record) of each row of a file with a header row of distinct names (spaces
    around a name are not part of it) holding the columns the task file names. TSV has no
    quoting (a quote is text); CSV quotes as Excel does, a line break inside quotes included
    (the reader sees each line with its end). A blank line (spaces only) is no row and is
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
    missing = [column for column in _named(source) if column not in header]
    for column in missing:  # the header's problem, once: not one per row
        found, fix = _column_missing(source, column, header)
        problems.add(1, f"a column {column!r} in the header", f"the columns {found}", fix)
    if missing:
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


def _keyed(
    rows: list[tuple[int, Record]], source: TableSource, problems: Problems
) -> list[tuple[int, Record]]:
    """The JSON ``rows`` holding every key the task file names. A key that no object holds is
    one problem for the file (a misspelt key), naming the keys there are; an object without
    a key the others hold is a bad line."""
    named = _named(source)
    present = list(dict.fromkeys(key for _, record in rows for key in record))
    absent = [column for column in named if rows and column not in present]
    for column in absent:
        found, fix = _column_missing(source, column, present)
        problems.add(None, f"objects with the key {column!r}", f"none; their keys: {found}", fix)
    if absent:
        return []
    kept = []
    for number, record in rows:
        missing = [column for column in named if column not in record]
        if missing:
            found = f"no {', '.join(missing)} among {', '.join(map(str, record))}"
            problems.add(number, f"the key(s) {', '.join(named)}", found, FIX)
            continue
        kept.append((number, record))
    return kept


def records(
    source: TableSource, path: Path, encoding: str | None, problems: Problems
) -> list[tuple[int, Record]]:
    """(line, record) of every well-formed row of ``path`` holding the columns the task file
    names; the others, and a column the file lacks, go to ``problems``."""
    lines = read_lines(path, encoding, problems)
    if source.format == "jsonl":
        return _keyed(list(_jsonl(lines, problems)), source, problems)
    return list(_delimited(lines, "\t" if source.format == "tsv" else ",", source, problems))


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


# a JSON label of a type no label is read from -> (its name, its plural, the fix of a label
# like it); ``{value}`` is the first one found
WRONG_TYPES = {
    "bool": ("boolean", "booleans", 'write true as "true" (a string), false as "false"'),
    "float": (
        "number with a decimal point",
        "numbers with a decimal point",
        'write {value} as an integer, or as "{value}"',
    ),
    "NoneType": ("null", "nulls", "give each line a label (a JSON string or integer)"),
    "list": ("array", "arrays", "give each line one label (a JSON string or integer)"),
    "dict": ("object", "objects", "give each line one label (a JSON string or integer)"),
}


def _add_wrong_types(
    problems: Problems, found: dict[str, list[tuple[int, object]]], column: str
) -> None:
    """One problem per JSON type of the labels that are neither strings nor integers
    (``found``: type name -> (line, value)), naming their lines and a fix for that type."""
    for type_name, where in found.items():
        name, plural, fix = WRONG_TYPES[type_name]
        numbers = [number for number, _ in where]
        problems.add(
            None,
            f"labels that are JSON strings or integers in column {column!r}",
            f"{len(numbers)} {name if len(numbers) == 1 else plural} "
            f"({listed_lines(numbers)}), read as no label",
            fix.format(value=_json(where[0][1])),
        )


def training_labels(source: TableSource, kind: str) -> tuple[str, ...]:
    """The distinct labels of the training file, numerically sorted when all are integers,
    else alphabetically (the class order of a task file without ``labels``). A file that
    yields fewer than two labels and has problems (rows that cannot be read, a column it
    lacks, labels of a JSON type read as none) raises them: they are the cause, not "too few
    labels"; else its bad lines are reported when it is read."""
    path = source.path(source.files[0][0])
    problems = Problems(path)
    rows = records(source, path, marked_encoding(path), problems)
    found: set[str] = set()
    wrong: dict[str, list[tuple[int, object]]] = {}
    for number, record in rows:
        text = _label_text(record[source.label], kind)
        if text is None:
            raw = record[source.label]
            wrong.setdefault(type(raw).__name__, []).append((number, raw))
        elif text:
            found.add(text)
    if len(found) < 2:
        _add_wrong_types(problems, wrong, source.label)
        problems.raise_any()
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
        f"{len(numbers)} {rare} label{'' if len(numbers) == 1 else 's'} "
        f"({listed_lines(numbers)}) among {common} ones",
        f"write every label of {path.name} alike",
    )


def read_table_file(task: TaskSpec, path: Path, encoding: str | None) -> list[Example]:
    """Every row of one of a task file's files as an :class:`Example`; all bad lines listed.
    Sentences are JSON strings, labels strings or integers of one type per file (a relatedness
    score any number): a value of another type is a bad line, never read as its ``str``."""
    source = task.table
    assert source is not None
    problems = Problems(path)
    examples = []
    label_lines: dict[str, list[int]] = {}  # JSON type of the class labels -> lines
    wrong: dict[str, list[tuple[int, object]]] = {}  # a class label of another JSON type
    for number, record in records(source, path, encoding, problems):
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
            fix = FIX
        elif label_text is None:
            wrong.setdefault(type(raw).__name__, []).append((number, raw))
            continue
        else:
            label = task.labels.index(label_text) if label_text in task.labels else None
            expected = f"a label in {', '.join(task.labels)} in column {source.label!r}"
            label_lines.setdefault("string" if isinstance(raw, str) else "integer", []).append(
                number
            )
            fix = FIX if label_text == "" else FIX + ", or list the label under labels:"
        if label is None:
            found = "an empty label" if label_text == "" else _json(raw)
            problems.add(number, expected, found, fix)
            continue
        if not_text:
            continue
        text = tuple(str(record[source.text]).split())
        pair = tuple(str(record[source.text_pair]).split()) if source.text_pair else None
        examples.append(Example(text, label, pair, source=(path, number)))
    _add_wrong_types(problems, wrong, source.label)
    _mixed_types(path, label_lines, source.label, problems)
    problems.raise_any()
    return examples


def _files(task: TaskSpec, root: Path) -> dict[str, tuple[Path, ...]] | None:
    source = task.table
    return None if source is None else {s: (source.path(s),) for s, _ in source.files}


def _read(task: TaskSpec, split: str, files: tuple[Path, ...], encoding: str | None) -> SplitData:
    return SplitData(split, read_table_file(task, files[0], encoding), files)


LAYOUT = Layout("task-file", _files, _read)
