"""A user's own task: the task file (datamodules.task_file) and its reader (readers/table.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from datamodules import DataFormatError, build_datamodule
from datamodules.task_file import TaskFileError, load_task_file
from datamodules.tasks import get_task, list_tasks, task_name, task_problems

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "own-data" / "reviews.yaml"


def _task(folder: Path, text: str, files: dict[str, str]) -> Path:
    for name, content in files.items():
        (folder / name).write_text(content, encoding="utf-8")
    path = folder / "task.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _tsv(rows: list[tuple[str, str]], header: str = "text\tlabel") -> str:
    return "\n".join([header, *(f"{t}\t{lab}" for t, lab in rows)]) + "\n"


TRAIN = [(f"word{i % 7} good thing {i}", "yes" if i % 2 else "no") for i in range(40)]


def test_the_committed_example_is_a_task_named_by_its_file() -> None:
    task = get_task(str(EXAMPLE))
    assert (task.name, task.kind, task.labels) == ("reviews", "single", ("negative", "positive"))
    assert (task.dev_source, task.test_source, task.cv_folds) == ("dev", "test", 0)
    assert task_name(str(EXAMPLE)) == "reviews"
    dm = build_datamodule(str(EXAMPLE), batch_size=8)
    dm.check_inputs()
    dm.setup("fit")
    dm.setup("test")
    assert [len(dm.datasets[s]) for s in ("train", "val", "test")] == [120, 30, 30]


def test_string_labels_without_a_list_are_the_training_files_sorted(tmp_path: Path) -> None:
    numeric = [(f"s {i}", str(i % 11)) for i in range(33)]
    path = _task(
        tmp_path,
        "name: numbers\nformat: tsv\ntext: text\nlabel: label\ntrain: train.tsv\nfolds: 3\n",
        {"train.tsv": _tsv(numeric)},
    )
    task = load_task_file(path, list_tasks())
    assert task.labels == tuple(str(i) for i in range(11))  # 2 before 10: numeric order
    assert (task.source_splits, task.cv_folds, task.dev_source) == (("all",), 3, None)


def test_a_task_needs_a_test_file_or_folds(tmp_path: Path) -> None:
    path = _task(
        tmp_path,
        "name: mine\ntext: text\nlabel: label\ntrain: train.tsv\n",
        {"train.tsv": _tsv(TRAIN)},
    )
    assert task_problems(str(path)) == [
        f"{path}: test: expected the test file, or a fold count (folds: 10) for CV"
    ]


def test_every_problem_of_a_task_file_at_once(tmp_path: Path) -> None:
    path = _task(
        tmp_path,
        "name: SST2\nkind: triple\nformat: xlsx\ntext: t\ntext_pair: u\nlabel: l\n"
        "train: missing.tsv\ntest: also.tsv\nfolds: 1\nlabes: [a, b]\nlike: imdb\n",
        {},
    )
    with pytest.raises(TaskFileError) as raised:
        load_task_file(path, list_tasks())
    lines = str(raised.value).splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines)
    text = "\n".join(lines)
    for expected in (
        "unknown key 'labes'; did you mean 'labels'?",
        "name: expected a lowercase name",
        "kind: expected one of single, pair, relatedness, got 'triple'",
        "format: expected one of csv, tsv, jsonl, got 'xlsx'",
        "like: expected the benchmark",
        "text_pair: only a pair or relatedness task",
        "train: no such file",
        "test: no such file",
        "folds: expected a number of folds of at least 2, got 1",
        "folds: give a test file or a fold count, not both",
    ):
        assert expected in text, text
    assert len(lines) == 10


def test_a_benchmark_name_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    path = _task(
        tmp_path,
        "name: sst2\ntext: text\nlabel: label\ntrain: train.tsv\ntest: train.tsv\n",
        {"train.tsv": _tsv(TRAIN)},
    )
    assert "'sst2' is a benchmark task" in "\n".join(task_problems(str(path)))
    assert task_problems(str(tmp_path / "nope.yaml")) == [
        f"{tmp_path / 'nope.yaml'}: no such task file"
    ]
    assert "unknown task 'reviews'" in task_problems("reviews")[0]


def test_every_bad_line_of_a_tsv_in_one_error(tmp_path: Path) -> None:
    rows = [*TRAIN[:2], ("fine words", "maybe"), *TRAIN[2:3], ("a\textra", "yes")]
    text = _tsv(rows)
    data = text.encode() + b"caf\xe9 au lait\tyes\n"  # line 7: not UTF-8
    (tmp_path / "train.tsv").write_bytes(data)
    path = _task(
        tmp_path,
        "name: mine\nformat: tsv\ntext: text\nlabel: label\nlabels: [no, yes]\ntrain: train.tsv\n"
        "folds: 2\n",
        {},
    )
    dm = build_datamodule(str(path))
    with pytest.raises(DataFormatError) as raised:
        dm.check_inputs()
    error = raised.value
    # strings, not YAML 1.1 booleans
    assert load_task_file(path, list_tasks()).labels == ("no", "yes")
    assert [(p.path.name, p.line) for p in error.problems] == [
        ("train.tsv", 4),
        ("train.tsv", 6),
        ("train.tsv", 7),
    ]
    assert "a label in no, yes in column 'label'" in str(error)
    assert "2 columns like the header" in str(error)
    assert "expected text in utf-8" in str(error)


def test_a_quoted_csv_pair_task_and_a_jsonl_relatedness_task(tmp_path: Path) -> None:
    csv_rows = [
        "premise,hypothesis,gold",
        *(f'"a, b {i}",c d {i},{("x", "y")[i % 2]}' for i in range(30)),
    ]
    path = _task(
        tmp_path,
        "name: pairs\nkind: pair\ntext: premise\ntext_pair: hypothesis\nlabel: gold\n"
        "train: train.csv\nfolds: 3\n",
        {"train.csv": "\n".join(csv_rows) + "\n"},
    )
    dm = build_datamodule(str(path))
    dm.setup("fit")
    example = next(e for e in dm._examples["train"] if e.source[1] == 2)
    assert (example.a, example.b, example.label) == (("a,", "b", "0"), ("c", "d", "0"), 0)
    scores = [{"s1": f"w {i}", "s2": f"v {i}", "score": 1 + (i % 9) / 2} for i in range(30)]
    scores[4]["score"] = 7
    path = _task(
        tmp_path,
        "name: close\nkind: relatedness\ntext: s1\ntext_pair: s2\nlabel: score\ntrain: r.jsonl\n"
        "test: r.jsonl\n",
        {"r.jsonl": "\n".join(map(json.dumps, scores)) + "\n{not json\n"},
    )
    assert get_task(str(path)).num_classes == 5
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    error = raised.value
    assert [p.line for p in error.problems] == [5, 31]
    assert "a score in [1, 5] in column 'score'" in str(error)


def test_a_cross_validation_task_splits_its_one_file(tmp_path: Path) -> None:
    path = _task(
        tmp_path,
        "name: cv\ntext: text\nlabel: label\ntrain: all.tsv\nfolds: 4\n",
        {"all.tsv": _tsv(TRAIN)},
    )
    tested = []
    for fold in range(4):
        dm = build_datamodule(str(path), fold=fold, batch_size=4)
        dm.setup("test")
        tested += [e.source[1] for e in dm._examples["test"]]
    assert sorted(tested) == list(range(2, 42))  # every line tested exactly once
