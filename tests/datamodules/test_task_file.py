"""A user's own task: the task file (datamodules.task_file) and its reader (readers/table.py)."""

from __future__ import annotations

import json
import shlex
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
        "unknown key 'labes' (did you mean labels?)",
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


# --- issue 54.9: a user's file is read as written --------------------------------------------

CV = "name: mine\nformat: {format}\ntext: text\nlabel: label\ntrain: all.{format}\nfolds: 2\n"


def _rows(count: int = 20) -> list[str]:
    return [f"w{i} x,{('pos', 'neg')[i % 2]}" for i in range(count)]


def test_a_newline_inside_a_quoted_csv_field_separates_two_words(tmp_path: Path) -> None:
    """``read_lines`` stripped the line end before ``csv.reader`` saw it: ``multiline``."""
    lines = ["text,label", '"multi', 'line sentence, here",neg', *_rows()]
    path = _task(tmp_path, CV.format(format="csv"), {"all.csv": "\n".join(lines) + "\n"})
    dm = build_datamodule(str(path), batch_size=4)
    dm.check_inputs()
    examples = {e.source[1]: e for split in ("train", "test") for e in dm._examples[split]}
    assert examples[2].a == ("multi", "line", "sentence,", "here")
    assert sorted(examples) == [2, *range(4, 24)]  # a row is named by its first line


def test_a_bad_row_after_a_multi_line_one_is_named_by_its_own_line(tmp_path: Path) -> None:
    lines = ["text,label", '"multi', 'line",neg', *_rows(), "one,two,three", '"never closed,pos']
    path = _task(tmp_path, CV.format(format="csv"), {"all.csv": "\n".join(lines) + "\n"})
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    assert [p.line for p in raised.value.problems] == [24, 25]
    assert "unexpected end of data" in raised.value.problems[1].found


@pytest.mark.parametrize(("format", "separator"), [("csv", ","), ("tsv", "\t")])
def test_repeated_column_names_are_refused_in_one_line_naming_them(
    tmp_path: Path, format: str, separator: str
) -> None:
    """``text,label,text`` trained on the last ``text`` column without a word."""
    rows = [separator.join((f"w{i}", ("pos", "neg")[i % 2], "other")) for i in range(20)]
    header = separator.join(("text", "label", "text"))
    task = CV.format(format=format) + "labels: [neg, pos]\n"  # the file is read by check_inputs
    path = _task(tmp_path, task, {f"all.{format}": "\n".join([header, *rows])})
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    (problem,) = raised.value.problems
    assert problem.line == 1 and "'text' in columns 1 and 3" in problem.found


def test_spaces_around_a_column_name_are_not_part_of_it(tmp_path: Path) -> None:
    """``text, label`` (a space after the comma, as people type) names ``label``, and
    ``text,label,text `` repeats ``text`` (a trailing space made a third column of its own)."""
    rows = [f"w{i}, {('pos', 'neg')[i % 2]}" for i in range(20)]
    path = _task(tmp_path, CV.format(format="csv"), {"all.csv": "\n".join(["text, label", *rows])})
    assert task_problems(str(path)) == []
    rows = [f"w{i},{('pos', 'neg')[i % 2]},x" for i in range(20)]
    (tmp_path / "b").mkdir()
    files = {"all.csv": "\n".join(["text,label,text ", *rows])}
    path = _task(tmp_path / "b", CV.format(format="csv"), files)
    (problem,) = task_problems(str(path))
    assert "'text' in columns 1 and 3" in problem


def test_a_repeated_label_column_is_named_not_taken_for_too_few_labels(tmp_path: Path) -> None:
    """``text,label,label`` (no ``labels:``) said "fewer than two labels"."""
    rows = [f"w{i},{('pos', 'neg')[i % 2]},x" for i in range(20)]
    path = _task(
        tmp_path, CV.format(format="csv"), {"all.csv": "\n".join(["text,label,label", *rows])}
    )
    (problem,) = task_problems(str(path))
    assert problem.startswith(f"{tmp_path / 'all.csv'}:1: expected a header row of distinct")
    assert "'label' in columns 2 and 3" in problem and "fewer than two" not in problem


def test_a_repeated_jsonl_key_is_refused_on_every_line_that_has_one(tmp_path: Path) -> None:
    rows = [json.dumps({"text": f"w {i}", "label": ("pos", "neg")[i % 2]}) for i in range(20)]
    rows[2] = '{"text": "first", "label": "pos", "text": "second"}'
    rows[6] = '{"label": "neg", "text": "a", "label": "pos"}'
    path = _task(tmp_path, CV.format(format="jsonl"), {"all.jsonl": "\n".join(rows) + "\n"})
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    assert [(p.line, p.found) for p in raised.value.problems] == [
        (3, "the key 'text' more than once"),
        (7, "the key 'label' more than once"),
    ]


@pytest.mark.parametrize("fold", [0, 1, 2, 3, 4])
def test_every_folds_training_part_is_checked_for_two_classes(tmp_path: Path, fold: int) -> None:
    """``folds: 5`` over 20 ``pos`` and 1 ``neg``: the fold holding ``neg`` trained on ``pos``
    alone and exited 0; every fold's datamodule now refuses the file before any training."""
    rows = [f"good {i}\tpos" for i in range(20)] + ["bad one\tneg"]
    task = CV.format(format="tsv").replace("folds: 2", "folds: 5")
    path = _task(tmp_path, task, {"all.tsv": "\n".join(["text\tlabel", *rows]) + "\n"})
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path), fold=fold).check_inputs()
    (problem,) = raised.value.problems
    assert "every class in the training part of every fold" in problem.expected
    assert "trains on class 'pos' only" in problem.found and "'neg'" in problem.found


@pytest.mark.parametrize("fold", [0, 3])
def test_a_fold_training_without_one_of_three_classes_is_refused(tmp_path: Path, fold: int) -> None:
    """Outside check of #54 part B: ``folds: 5`` over 20 ``pos``, 20 ``neg`` and one ``mid``
    left the fold holding ``mid`` training on two classes of three, and the fit exited 0."""
    rows = [f"good {i}\tpos" for i in range(20)] + [f"bad {i}\tneg" for i in range(20)]
    task = CV.format(format="tsv").replace("folds: 2", "folds: 5")
    path = _task(tmp_path, task, {"all.tsv": _tsv([]) + "\n".join([*rows, "so so\tmid"]) + "\n"})
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path), fold=fold).check_inputs()
    (problem,) = raised.value.problems
    assert problem.found.startswith("fold ") and problem.found.endswith(
        "trains without class 'mid': every example of it is in fold " + problem.found.split()[1]
    ), problem.found


def test_a_fold_without_a_test_example_is_refused_before_training(tmp_path: Path) -> None:
    rows = ["a b\tpos", "c d\tneg", "e f\tpos"]
    task = CV.format(format="tsv").replace("folds: 2", "folds: 4")
    path = _task(tmp_path, task, {"all.tsv": "\n".join(["text\tlabel", *rows]) + "\n"})
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    assert any("fold 3 holds no example" in p.found for p in raised.value.problems)


def test_jsonl_labels_of_several_types_are_refused_naming_their_lines(tmp_path: Path) -> None:
    """``1``, ``"1"``, ``1.0`` and ``true`` were distinct classes. A label of a JSON type no
    label is read from is named with the others of its type, with the fix for that type (it
    was told to "list the label under labels:", where no float or boolean is read)."""
    rows = [{"text": f"w {i}", "label": i % 2} for i in range(20)]
    rows[3]["label"], rows[5]["label"], rows[8]["label"] = "1", 1.0, True
    rows[9]["label"], rows[11]["text"] = "0", None
    path = _task(
        tmp_path, CV.format(format="jsonl"), {"all.jsonl": "\n".join(map(json.dumps, rows))}
    )
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    problems = [(p.line, p.found, p.fix) for p in raised.value.problems]
    assert problems == [
        (
            None,
            "1 number with a decimal point (line 6), read as no label",
            'write 1.0 as an integer, or as "1.0"',
        ),
        (
            None,
            "1 boolean (line 9), read as no label",
            'write true as "true" (a string), false as "false"',
        ),
        (
            None,
            "2 string labels (line 4, 10) among integer ones",
            "write every label of all.jsonl alike",
        ),
        (12, "null", "correct or delete the line"),
    ], problems


def test_one_label_of_another_json_type_is_counted_in_the_singular(tmp_path: Path) -> None:
    """Leftovers of #56, item 6: 'found 1 integer labels (line 5)'."""
    rows = [{"text": f"w {i}", "label": "ab"[i % 2]} for i in range(20)]
    rows[4]["label"] = 1
    path = _task(
        tmp_path, CV.format(format="jsonl"), {"all.jsonl": "\n".join(map(json.dumps, rows))}
    )
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    found = [p.found for p in raised.value.problems if p.line is None]
    assert found == ["1 integer label (line 5) among string ones"], found


# --- issue 56.11: advice that fits the problem --------------------------------------------------


@pytest.mark.parametrize("format", ["csv", "tsv", "jsonl"])
def test_blank_lines_of_a_task_file_are_skipped_and_named_by_nothing(
    tmp_path: Path, format: str
) -> None:
    """A trailing blank line (and a blank line between rows) is no row: skipped, as pandas
    does; the rows keep their own line numbers."""
    rows = [(f"w{i} x", ("pos", "neg")[i % 2]) for i in range(20)]
    if format == "jsonl":
        lines = [json.dumps({"text": text, "label": label}) for text, label in rows]
    else:
        sep = "," if format == "csv" else "\t"
        lines = [f"text{sep}label", *(f"{text}{sep}{label}" for text, label in rows)]
    lines.insert(5, "")  # a blank line among the rows
    lines.insert(8, "  \t ")  # a line of spaces only
    path = _task(tmp_path, CV.format(format=format), {f"all.{format}": "\n".join(lines) + "\n\n"})
    dm = build_datamodule(str(path), batch_size=4)
    dm.check_inputs()
    read = sorted(e.source[1] for split in ("train", "test") for e in dm._examples[split])
    header = 0 if format == "jsonl" else 1
    assert len(read) == 20 and 6 not in read and 9 not in read
    assert read[0] == header + 1


def test_a_score_out_of_range_is_not_told_to_list_a_label(tmp_path: Path) -> None:
    scores = [{"s1": f"w {i}", "s2": f"v {i}", "score": 1 + (i % 9) / 2} for i in range(30)]
    scores[4]["score"] = 7
    path = _task(
        tmp_path,
        "name: close\nkind: relatedness\ntext: s1\ntext_pair: s2\nlabel: score\ntrain: r.jsonl\n"
        "test: r.jsonl\n",
        {"r.jsonl": "\n".join(map(json.dumps, scores)) + "\n"},
    )
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    (problem,) = {str(p) for p in raised.value.problems}
    assert "a score in [1, 5]" in problem and "labels:" not in problem


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"name: [\n", ":2: not YAML: expected the node content, but found '<stream end>'"),
        (b"name: x\n\tkind: single\n", ":2: not YAML: found character '\\t' that cannot start"),
        (b"\x00name: x\n", ": not a text file: character #x0000 at position 0"),
        (b"name: caf\xe9\n", ": not UTF-8 text (byte 9: invalid continuation byte)"),
        # PyYAML keeps a repeated key's last value without a word; YAML's keys are unique
        (b"name: a\nkind: single\nname: b\n", ":3: not YAML: key 'name' given twice (first"),
        (b"name: a\nfiles:\n  train: x.csv\n  train: y.csv\n", ":4: not YAML: key 'train' given"),
    ],
)
def test_a_task_file_that_is_not_yaml_is_named_at_its_line(
    tmp_path: Path, content: bytes, said: str
) -> None:
    """Issue 56 (H11.2): PyYAML's own text, its marks and ``"<unicode string>"`` included."""
    path = tmp_path / "mine.yaml"
    path.write_bytes(content)
    with pytest.raises(TaskFileError) as refused:
        load_task_file(path, list_tasks())
    assert str(refused.value).startswith(f"{path}{said}")
    assert "<unicode string>" not in str(refused.value) and "\n" not in str(refused.value)


def test_a_folder_named_as_a_split_is_called_a_folder(tmp_path: Path) -> None:
    """Issue 56 breaker: ``test: .`` was "no such file" (it is the task file's folder)."""
    path = _task(
        tmp_path,
        "name: mine\ntext: text\nlabel: label\ntrain: train.tsv\ntest: .\n",
        {"train.tsv": _tsv(TRAIN)},
    )
    assert task_problems(str(path)) == [
        f"{path}: test: {tmp_path / '.'} is a folder; expected the test file"
    ]


def test_a_run_option_in_a_task_file_is_named_where_it_goes(tmp_path: Path) -> None:
    """Issue 56 (H17.8): ``dev_fraction: 0.5`` in a task file was an unknown key with no word of
    where it goes; the empty-dev advice says "set dev_fraction"."""
    path = _task(
        tmp_path,
        "name: mine\ntext: text\nlabel: label\ntrain: train.tsv\nfolds: 3\ndev_fraction: 0.5\n",
        {"train.tsv": _tsv(TRAIN)},
    )
    assert task_problems(str(path)) == [
        f"{path}: dev_fraction: a run's option, not the task's: give it as --data.dev_fraction "
        "(or under data: in a --config file)"
    ]
    import inspect

    from datamodules.datamodule import BenchmarkDataModule
    from datamodules.task_file import RUN_OPTIONS

    assert set(RUN_OPTIONS) <= set(inspect.signature(BenchmarkDataModule).parameters)


@pytest.mark.parametrize("share", [0.1, 0.5])
def test_an_empty_carved_dev_set_names_the_share_it_carved(tmp_path: Path, share: float) -> None:
    """Issue 56 (H17.8): the advice said "a 10% dev share" beside dev_fraction 0.5."""
    from datamodules.errors import EmptySplitError

    one_each = [("good thing", "yes"), ("bad thing", "no")]  # round(1 x share) = 0 per class
    path = _task(
        tmp_path,
        "name: mine\ntext: text\nlabel: label\ntrain: train.tsv\ntest: test.tsv\n",
        {"train.tsv": _tsv(one_each), "test.tsv": _tsv(one_each)},
    )
    dm = build_datamodule(str(path), dev_fraction=share)
    with pytest.raises(EmptySplitError) as raised:
        dm.setup("fit")
    message = str(raised.value)
    assert f"a {share * 100:g}% dev share (--data.dev_fraction {share})" in message, message
    assert "10%" not in message or share == 0.1


def test_a_folder_as_task_says_what_a_task_is(tmp_path: Path) -> None:
    """Issue 56 (H17.9): ``fit --task 'my task'``, a folder, listed the benchmarks only."""
    folder = tmp_path / "my task"
    folder.mkdir()
    (problem,) = task_problems(str(folder))
    said = f"{folder}: a folder, not a task: give a task file (NAME.yaml"
    assert problem.startswith(said), problem
    assert "--data-dir" in problem and "holds" not in problem
    (folder / "reviews.yaml").write_text("name: reviews\n")
    (problem,) = task_problems(str(folder))
    # a command's words, quoted for a shell (outside check 14: the space split it)
    assert problem.endswith(f"; it holds one: --task {shlex.quote(str(folder / 'reviews.yaml'))}")


# --- outside check of #54 part B: the real problem, not "fewer than two labels" -------------

MISSPELT = "name: mine\nformat: {format}\ntext: text\nlabel: labl\ntrain: all.{format}\nfolds: 2\n"


def _problems(path: Path) -> list[str]:
    """The task file's problems (``--task`` is checked first), else its files' (the run's)."""
    problems = task_problems(str(path))
    if problems:
        return problems
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    return str(raised.value).splitlines()


@pytest.mark.parametrize("labels", ["", "labels: [pos, neg]\n"])
@pytest.mark.parametrize("format", ["csv", "tsv", "jsonl"])
def test_a_label_column_the_file_lacks_is_one_line_naming_the_columns(
    tmp_path: Path, format: str, labels: str
) -> None:
    """``label: labl`` said "the training file's column 'labl' holds fewer than two labels
    (none)" without ``labels:``, and with it one line per row (40 lines for one header)."""
    rows = [(f"w{i} x", ("pos", "neg")[i % 2]) for i in range(40)]
    if format == "jsonl":
        text = "\n".join(json.dumps({"text": t, "label": lab}) for t, lab in rows)
    else:
        sep = "," if format == "csv" else "\t"
        text = "\n".join([f"text{sep}label", *(f"{t}{sep}{lab}" for t, lab in rows)])
    path = _task(tmp_path, MISSPELT.format(format=format) + labels, {f"all.{format}": text})
    (problem,) = _problems(path)
    where, column = ("", "key") if format == "jsonl" else (":1", "column")
    assert problem.startswith(f"{tmp_path / f'all.{format}'}{where}: expected "), problem
    assert "'labl'" in problem and "text, label" in problem, problem
    assert problem.endswith(f"fix: write label: label in task.yaml, or rename the file's {column}")


def test_jsonl_labels_all_booleans_are_named_not_taken_for_too_few_labels(tmp_path: Path) -> None:
    """Labels ``true``/``false`` on every line said "fewer than two labels (none)"; docs/data.md
    says a boolean is refused where it stands."""
    rows = [json.dumps({"text": f"w {i}", "label": bool(i % 2)}) for i in range(30)]
    path = _task(tmp_path, CV.format(format="jsonl"), {"all.jsonl": "\n".join(rows)})
    (problem,) = task_problems(str(path))
    assert problem == (
        f"{tmp_path / 'all.jsonl'}: expected labels that are JSON strings or integers in column "
        "'label'; found 30 booleans (line 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
        '17, 18, 19, 20, ...), read as no label; fix: write true as "true" (a string), false '
        'as "false"'
    )


def test_an_empty_label_is_not_told_to_be_listed_under_labels(tmp_path: Path) -> None:
    rows = [(f"w{i} x", ("pos", "neg")[i % 2]) for i in range(20)] + [("no label", "")]
    path = _task(tmp_path, CV.format(format="tsv"), {"all.tsv": _tsv(rows)})
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    (problem,) = raised.value.problems
    assert (problem.line, problem.found, problem.fix) == (
        22,
        "an empty label",
        "correct or delete the line",
    )


def test_a_utf16_task_file_is_named_as_utf16_and_read_with_its_encoding(tmp_path: Path) -> None:
    """A UTF-16 CSV said "fewer than two labels (none)": its header read as UTF-8 is no name."""
    rows = "\n".join(["text,label", *(f"w{i} café,{('pos', 'neg')[i % 2]}" for i in range(20))])
    (tmp_path / "all.csv").write_text(rows + "\n", encoding="utf-16")
    path = _task(tmp_path, CV.format(format="csv"), {})
    (problem,) = _problems(path)
    assert problem == (
        f"{tmp_path / 'all.csv'}: expected text in utf-8; found UTF-16 (little-endian) text (its "
        "byte-order mark); fix: pass --encoding utf-16, or re-encode it: iconv -f utf-16 -t "
        "utf-8 all.csv > fixed"
    )
    dm = build_datamodule(str(path), encoding="utf-16")
    dm.check_inputs()
    assert dm.task.labels == ("neg", "pos") and len(dm._examples["train"]) == 10


def _three_classes(folder: Path, held: str) -> Path:
    """A task of ``labels: [neg, neu, pos]`` whose training file has neg and pos only and whose
    ``held`` file (dev or test) also has neu."""
    train = [(f"w{i} good", ("neg", "pos")[i % 2]) for i in range(20)]
    other = [(f"w{i} so so", ("neg", "neu", "pos")[i % 3]) for i in range(9)]
    files = {"train.tsv": _tsv(train), "test.tsv": _tsv(train[:6]), "dev.tsv": _tsv(train[:6])}
    files[f"{held}.tsv"] = _tsv(other)
    task = "name: mine\ntext: text\nlabel: label\nlabels: [neg, neu, pos]\n"
    task += "train: train.tsv\ndev: dev.tsv\ntest: test.tsv\n"
    return _task(folder, task, files)


@pytest.mark.parametrize("held", ["test", "dev"])
def test_a_class_no_training_line_has_is_refused_naming_it_and_its_file(
    tmp_path: Path, held: str
) -> None:
    """Outside check 54g of #54, item 3: ``labels: [neg, neu, pos]``, the training file with
    neg and pos, the test file with neu too: the fit trained and exited 0 (a fold without a
    class is refused); the model could never predict neu and was scored on it."""
    path = _three_classes(tmp_path, held)
    with pytest.raises(DataFormatError) as raised:
        build_datamodule(str(path)).check_inputs()
    (problem,) = raised.value.problems
    assert (problem.path, problem.line) == (tmp_path / f"{held}.tsv", 3)
    assert problem.expected == "only classes the training lines (train.tsv) have"
    assert problem.found.startswith("class 'neu' (3 lines), which no training line has")


# each command that trains, on a task file (its --out added)
ONE_STEP = ["--max-steps", "1"]
TRAINING_WORDS = {
    "fit": ["fit", "--encoder", "multi_cnn", "--trainer.max_steps", "1", "--task"],
    "suite": ["suite", "--encoders", "multi_cnn", "--seeds", "1", *ONE_STEP, "--tasks"],
    "tune": ["tune", "--study", "dropout", "--encoder", "multi_cnn", *ONE_STEP, "--task"],
}


@pytest.mark.parametrize("command", TRAINING_WORDS)
def test_every_command_that_trains_refuses_it_before_any_training(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same refusal from fit, suite and tune: exit 2, one line, no run folder."""
    from harness.cli import main

    path = _three_classes(tmp_path, "test")
    status = main([*TRAINING_WORDS[command], str(path), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert status == 2, err
    said = [line for line in err.splitlines() if "no training line has" in line]
    assert len(said) == 1 and f"{tmp_path / 'test.tsv'}:3: " in said[0], err
    assert not (tmp_path / "r").exists()
