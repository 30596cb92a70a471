"""A user's own task: a YAML file naming its data files, their format and their columns.

    name: reviews                 # what every table and page calls the task
    kind: single                  # single | pair | relatedness
    format: tsv                   # csv | tsv | jsonl (default: the train file's suffix)
    text: review                  # the sentence's column (jsonl: key)
    label: sentiment              # the label's column (relatedness: a score in [1, 5])
    train: reviews.train.tsv      # files relative to this task file
    dev: reviews.dev.tsv          # optional: else 10% of train, stratified and seeded
    test: reviews.test.tsv        # or, instead of a test file, `folds: 10` (cross-validation)

See docs/data.md, "Your own data". Loading reads no data file, except the training file's
label column when ``labels`` (the class order) is not given.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from datamodules.errors import DataFormatError, did_you_mean
from datamodules.paths import expanded
from datamodules.task_spec import KINDS, LIKE, SPLITS, TableSource, TaskSpec

FORMATS = ("csv", "tsv", "jsonl")
KEYS = (
    "name",
    "kind",
    "format",
    "text",
    "text_pair",
    "label",
    "labels",
    "train",
    "dev",
    "test",
    "folds",
    "like",
)
# the data module's arguments a task file may be given by mistake: a run's, set per run
RUN_OPTIONS = ("dev_fraction", "max_length", "batch_size", "eval_batch_size", "encoding")
SUFFIXES = (".yaml", ".yml")
NULLS = ("", "~", "null", "Null", "NULL")  # an unset key (values are read as strings)
NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
RELATEDNESS_CLASSES = 5  # scores in [1, 5] and the App. C target over K = 5 classes


class TaskFileError(ValueError):
    """A task file that cannot be used; one line per problem, each naming the file and key."""


def misnamed_task_file(value: str) -> str | None:
    """The problem of a task that names a file whose name does not end as a task file's
    (``reviews.txt``) or a folder (what a task is instead, and a task file it holds), else
    None: one line, where "unknown task" would be at odds with it."""
    path = expanded(value)
    if path.is_dir():
        held = sorted(found for suffix in SUFFIXES for found in path.glob(f"*{suffix}"))
        return (
            f"{value}: a folder, not a task: give a task file (NAME.yaml naming the folder's "
            'files, their format and columns: docs/data.md "Your own data"), or a benchmark\'s '
            "name with the folder as --data-dir"
            + (f"; it holds one: --task {shlex.quote(str(held[0]))}" if held else "")
        )
    if is_task_file(value) or not path.is_file():
        return None
    endings = " or ".join(SUFFIXES)
    return f'{value}: a task file\'s name ends in {endings} (docs/data.md "Your own data")'


def missing_task_file(value: str) -> str:
    """``value: no such task file``, with the nearest task file of its folder as ``value``
    spells that folder (``own,data/reviewz.yaml: ... (did you mean own,data/reviews.yaml?)``)."""
    folder, _, name = value.rpartition("/")
    found = expanded(folder or ".")
    names = [p.name for p in found.glob("*") if is_task_file(p.name)] if found.is_dir() else []
    hint = did_you_mean(name, names)
    if hint:
        meant = hint.removeprefix(" (did you mean ").removesuffix("?)")
        hint = f" (did you mean {folder + '/' if folder else ''}{meant}?)"
    return f"{value}: no such task file{hint}"


def is_task_file(value: str) -> bool:
    """Whether ``--task`` names a task file rather than a benchmark task."""
    return str(value).lower().endswith(SUFFIXES)


def _nearest(key: str) -> str:
    return did_you_mean(key, KEYS) or f"; known keys: {', '.join(KEYS)}"


def _unknown_key(key: str) -> str:
    """The problem of a key no task file has; a run's option (``dev_fraction``) says where it
    goes."""
    if key in RUN_OPTIONS:
        return (
            f"{key}: a run's option, not the task's: give it as --data.{key} (or under data: in "
            "a --config file)"
        )
    return f"unknown key {key!r}{_nearest(key)}"


def _text_problems(raw: dict[str, Any], kind: str) -> list[str]:
    problems = []
    for key in ("text", "label"):
        if not isinstance(raw.get(key), str) or not raw.get(key):
            problems.append(f"{key}: expected the name of a column (or jsonl key)")
    if kind == "single" and raw.get("text_pair") is not None:
        problems.append("text_pair: only a pair or relatedness task has a second sentence")
    if kind != "single" and not isinstance(raw.get("text_pair"), str):
        problems.append(f"text_pair: a {kind} task needs the second sentence's column")
    return problems


def _file_problems(raw: dict[str, Any], folder: Path) -> list[str]:
    problems = []
    for key in SPLITS:
        value = raw.get(key)
        if value is None:
            if key == "train":
                problems.append("train: expected the training file, relative to the task file")
            continue
        if not isinstance(value, str):
            problems.append(f"{key}: expected a file name, got {value!r}")
        elif (folder / value).is_dir():
            problems.append(f"{key}: {folder / value} is a folder; expected the {key} file")
        elif not (folder / value).is_file():
            problems.append(f"{key}: no such file {folder / value}")
    folds = raw.get("folds")
    if folds is not None:
        if not isinstance(folds, str) or not folds.isdigit() or int(folds) < 2:
            problems.append(f"folds: expected a number of folds of at least 2, got {folds}")
        if raw.get("test") is not None:
            problems.append("folds: give a test file or a fold count, not both")
    elif raw.get("test") is None:
        problems.append("test: expected the test file, or a fold count (folds: 10) for CV")
    return problems


def _label_problems(raw: dict[str, Any], kind: str) -> list[str]:
    labels = raw.get("labels")
    if labels is None:
        return []
    if kind == "relatedness":
        return ["labels: a relatedness task has scores in [1, 5], not labels"]
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        return [f"labels: expected a list of class labels, got {labels!r}"]
    names = labels
    if len(set(names)) != len(names) or len(names) < 2:
        return [f"labels: expected at least two distinct labels, got {names}"]
    return []


def _problems(raw: dict[str, Any], folder: Path, benchmarks: list[str]) -> list[str]:
    problems = [_unknown_key(key) for key in raw if key not in KEYS]
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        problems.append(
            f"name: expected a lowercase name of letters, digits, '-' and '_', got {name!r}"
        )
    elif name in benchmarks:
        problems.append(f"name: {name!r} is a benchmark task; give yours another name")
    kind = raw.get("kind", "single")
    if kind not in KINDS:
        problems.append(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
        kind = "single"
    format_ = raw.get("format")
    if format_ is not None and format_ not in FORMATS:
        problems.append(f"format: expected one of {', '.join(FORMATS)}, got {format_!r}")
    train = raw.get("train")
    if format_ is None and isinstance(train, str) and Path(train).suffix[1:].lower() not in FORMATS:
        problems.append(
            f"format: the train file's suffix is not one of {', '.join(FORMATS)}; "
            "name the format (format: csv, tsv or jsonl)"
        )
    like = raw.get("like")
    if like is not None and like not in benchmarks:
        problems.append(
            f"like: expected the benchmark whose training settings to use, one of "
            f"{', '.join(benchmarks)}; got {like!r}"
        )
    return (
        problems
        + _text_problems(raw, kind)
        + _file_problems(raw, folder)
        + _label_problems(raw, kind)
    )


def _source(raw: dict[str, Any], task_file: Path) -> TableSource:
    kind = raw.get("kind", "single")
    files = [("all" if raw.get("folds") else "train", raw["train"])]
    files += [(split, raw[split]) for split in ("dev", "test") if raw.get(split) is not None]
    return TableSource(
        task_file=task_file,
        format=raw.get("format") or Path(raw["train"]).suffix.lstrip(".").lower(),
        text=raw["text"],
        text_pair=raw.get("text_pair"),
        label=raw["label"],
        files=tuple(files),
        like=raw.get("like") or LIKE[kind],
    )


class UniqueKeyLoader(yaml.BaseLoader):
    """PyYAML's BaseLoader (every value a string) that refuses a key given twice in one mapping:
    YAML's keys are unique, and PyYAML kept the last value without a word."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        first_line: dict[object, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str) and key in first_line:
                raise yaml.constructor.ConstructorError(
                    problem=f"key {key!r} given twice (first on line {first_line[key]})",
                    problem_mark=key_node.start_mark,
                )
            if isinstance(key, str):
                first_line[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _not_yaml(path: str | Path, error: yaml.YAMLError | UnicodeDecodeError) -> str:
    """What stops ``path`` being read as YAML, at its line (``file:line: ...``) when known."""
    if isinstance(error, UnicodeDecodeError):
        return f"{path}: not UTF-8 text (byte {error.start}: {error.reason})"
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None)
    if mark is not None and problem:
        return f"{path}:{mark.line + 1}: not YAML: {problem} (column {mark.column + 1})"
    if isinstance(error, yaml.reader.ReaderError):
        code = error.character if isinstance(error.character, int) else ord(error.character)
        return f"{path}: not a text file: character #x{code:04x} at position {error.position}"
    return f"{path}: not YAML: {' '.join(str(error).split())}"


def load_task_file(path: str | Path, benchmarks: list[str]) -> TaskSpec:
    """The :class:`TaskSpec` a task file describes; :class:`TaskFileError` lists every problem
    of the file at once. ``benchmarks``: the names it may neither take nor be ``like``."""
    from datamodules.readers.table import training_labels

    task_file = expanded(path).resolve()
    if not task_file.is_file():
        raise TaskFileError(f"{path}: no such task file")
    try:  # every value a string: labels no/yes stay "no"/"yes" (YAML 1.1 would make booleans)
        raw = yaml.load(task_file.read_text(encoding="utf-8"), Loader=UniqueKeyLoader)
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise TaskFileError(_not_yaml(path, error)) from None
    if not isinstance(raw, dict):
        raise TaskFileError(f"{path}: expected a mapping of keys (name, kind, format, ...)")
    raw = {key: value for key, value in raw.items() if value not in NULLS}
    problems = _problems(raw, task_file.parent, benchmarks)
    if problems:
        raise TaskFileError("\n".join(f"{path}: {problem}" for problem in problems))
    source = _source(raw, task_file)
    kind = raw.get("kind", "single")
    folds = int(raw.get("folds") or 0)
    splits = tuple(split for split, _ in source.files)
    if kind == "relatedness":
        labels = tuple(str(score) for score in range(1, RELATEDNESS_CLASSES + 1))
    elif raw.get("labels") is not None:
        labels = tuple(raw["labels"])
    else:
        try:
            labels = training_labels(source, kind)
        except DataFormatError as error:  # its rows cannot be read: say why
            raise TaskFileError(str(error)) from None
        if len(labels) < 2:
            found = ", ".join(labels) or "none"
            raise TaskFileError(
                f"{path}: labels: the training file's column {source.label!r} holds fewer "
                f"than two labels ({found}); check the file and the label column"
            )
    return TaskSpec(
        raw["name"],
        kind,
        len(labels),
        labels,
        splits,
        dev_source="dev" if "dev" in splits else None,
        test_source="test" if "test" in splits else None,
        cv_folds=folds,
        title=raw["name"],
        table=source,
    )
