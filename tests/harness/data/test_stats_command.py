"""``sanbench data stats`` on fixtures."""

import json
import shutil

import pytest

from datamodules.errors import DataFormatError
from harness.cli import main
from tests.harness.problem_lines import files_lines, problem_lines


def test_stats_json_reports_splits_drops_and_coverage(fixtures, capsys):
    code = main(
        [
            "data", "stats", "--task", "snli", "--data-dir", str(fixtures / "nli-jsonl"),
            "--embeddings", str(fixtures / "vectors" / "tiny.glove.txt"), "--json",
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["layout"] == "snli-jsonl"
    dev = {s["split"]: s for s in report["splits"]}["dev"]
    assert dev["examples"] == 3 and dev["dropped"] == {"no gold label ('-')": 1}
    assert sum(dev["labels"].values()) == 3
    assert 0 < dev["coverage"] < 1
    assert set(dev["length"]) == {"mean", "std", "p50", "p90", "p95", "p99", "max"}


def test_stats_table_shows_missing_splits(fixtures, tmp_path, capsys, monkeypatch):
    for name in ("s1.dev", "s2.dev", "labels.dev"):
        (tmp_path / name).write_bytes((fixtures / "senteval" / "SNLI" / name).read_bytes())
    monkeypatch.chdir(tmp_path)  # a short path keeps the table's cells from wrapping
    assert main(["data", "stats", "--task", "snli", "--data-dir", "."]) == 0
    out = capsys.readouterr().out
    assert "missing" in out and "s1.train" in out and "dev" in out


def test_stats_table_rows_are_whole_lines_in_a_pipe(fixtures, tmp_path, capsys):
    """Piped (not a terminal), a row is never wrapped, however long the folder's path."""
    folder = tmp_path / ("a-folder-with-a-long-name-" * 8) / "nli-jsonl"
    shutil.copytree(fixtures / "nli-jsonl", folder)
    assert main(["data", "stats", "--task", "snli", "--data-dir", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert str(folder) in lines[0]  # the title with the whole path, on one line
    dev = next(line for line in lines if line.startswith("│ dev "))
    assert dev.endswith("│") and dev.count("│") == 9  # all eight columns of the row


def test_stats_prints_on_sanbenchs_console(fixtures, tmp_path, capsys, monkeypatch):
    """The table goes through ``harness.console.console`` and its one unwrapped-width rule
    (issue 55 breaker: ``data stats`` re-implemented it): a narrower rule narrows the table."""
    from harness import console

    shutil.copytree(fixtures / "nli-jsonl", tmp_path / "nli-jsonl")
    monkeypatch.setattr(console, "UNWRAPPED_WIDTH", 60)
    command = ["data", "stats", "--task", "snli", "--data-dir", str(tmp_path / "nli-jsonl")]
    assert main(command) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "│" in line]
    assert rows and max(len(row) for row in rows) <= 60


def test_stats_bad_file_prints_one_line_per_problem_and_no_traceback(fixtures, capsys):
    folder = fixtures / "bad" / "label-out-of-range"
    assert main(["data", "stats", "--task", "sst1", "--data-dir", str(folder)]) == 2
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first.startswith(f"sanbench data stats: {folder / 'stsa.fine.train'}:3: expected ")
    assert "'7'" in first
    assert "Traceback" not in err


def test_stats_debug_shows_the_traceback(fixtures):
    folder = fixtures / "bad" / "label-out-of-range"
    with pytest.raises(DataFormatError, match=r"stsa\.fine\.train:3"):
        main(["--debug", "data", "stats", "--task", "sst1", "--data-dir", str(folder)])


def test_stats_encoding_reads_a_latin1_file(tmp_path, capsys):
    (tmp_path / "stsa.fine.train").write_bytes("1 caf\u00e9\n".encode("latin-1"))
    command = ["data", "stats", "--task", "sst1", "--data-dir", str(tmp_path), "--json"]
    assert main(command) == 2
    assert f"{tmp_path / 'stsa.fine.train'}:1: expected text in utf-8" in capsys.readouterr().err
    assert main([*command, "--encoding", "latin-1"]) == 0
    train = json.loads(capsys.readouterr().out)["splits"][0]
    assert train["split"] == "train" and train["examples"] == 1


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (["--task", "nope", "--data-dir", "."], ["--task nope: expected one of"]),
        (["--task", "trec", "--data-dir", "/no/such/dir"], ["--data-dir", "no such folder"]),
        (["--task", "trec", "--data-dir", ".", "--embeddings", "/no/such.txt"], ["no such file"]),
        (["--task", "trec", "--data-dir", ".", "--encoding", "klingon"], ["unknown encoding"]),
        # a codec of bytes, not of text: Python's "use codecs.decode()" (issue 55 breaker)
        (["--task", "trec", "--data-dir", ".", "--encoding", "rot13"], ["rot13: not a text"]),
        (["--task", "trec", "--data-dir", ".", "--layout", "zip"], ["--layout zip: expected"]),
    ],
)
def test_stats_rejects_bad_arguments_while_parsing(arguments, words, capsys):
    assert main(["data", "stats", *arguments]) == 2
    err = capsys.readouterr().err
    assert all(word in err for word in words), err


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("data", "--data-dir {path}: is a file, expected a folder"),
        ("mine.txt", "--task {path}: a task file's name ends in .yaml or .yml"),
    ],
)
def test_stats_advice_fits_the_path_given(name, said, tmp_path, capsys):
    """Issue 56 breaker: a file as --data-dir was "no such folder"; a task file named .txt got
    "unknown task" and "--data-dir is required for a benchmark task" (two lines, at odds)."""
    path = tmp_path / name
    path.write_text("name: mine\n")
    arguments = ["--data-dir", str(path)] if name == "data" else ["--task", str(path)]
    assert main(["data", "stats", "--task", "trec", *arguments]) == 2
    err = capsys.readouterr().err  # a folder's problem alone: no pointer to the help
    lines = files_lines(err) if name == "data" else problem_lines(err, "data stats")
    assert len(lines) == 1 and said.format(path=path) in lines[0], lines


@pytest.mark.parametrize(
    ("task", "said"),
    [
        ("TREC", "(did you mean trec?)"),  # exited 0: get_task lower-cased it
        ("sst", "expected one of "),  # listed the aliases as tasks and advised sst5
    ],
)
def test_stats_reads_a_task_name_by_fits_rule_and_words(task, said, capsys):
    """Issue 55 breaker: ``data stats`` read task names by its own rule; now it says what
    ``fit --task`` says, one line ("expected one of ... sst1 (alias sst5)"), and, as fit
    does, the folder judged as of the nearest name beside it (outside check 10z item 9)."""
    from harness.training.settings.task_configs import task_option_problems

    assert main(["data", "stats", "--task", task, "--data-dir", "."]) == 2
    lines = problem_lines(capsys.readouterr().err, "data stats")
    assert said in lines[0], lines
    assert all(line.startswith("sanbench data stats: --data-dir .: ") for line in lines[1:])
    assert len(lines) <= 2, lines
    assert task_option_problems("--task", [task])[0] in lines[0]
    assert "sst1 (alias sst5)" in lines[0]


def test_stats_takes_a_tasks_alias(tmp_path, capsys):
    assert main(["data", "stats", "--task", "sst5", "--data-dir", str(tmp_path)]) == 2
    assert "--task" not in capsys.readouterr().err  # the alias is a task; the folder is empty


def test_a_problem_names_the_command_with_its_action(capsys) -> None:
    """Issue 56 (G2 item 4): ``data stats`` problems were prefixed ``sanbench data:``."""
    from harness.cli import main

    assert main(["data", "stats", "--task", "treec"]) == 2
    lines = problem_lines(capsys.readouterr().err, "data stats")  # its help: the action's
    assert lines[0].startswith("sanbench data stats: --task treec: expected one of"), lines
    assert len(lines) == 1, lines  # bad input: its message only, no --debug hint


def test_stats_table_says_what_an_empty_cell_means(fixtures, tmp_path, capsys, monkeypatch):
    """Outside check C of #56, item 6: 'data stats --task cr' printed 'dropped -' and
    'coverage -' with no legend, and '-' where every page prints '–'."""
    from reports.numbers import MISSING_LEGEND

    for name in ("s1.dev", "s2.dev", "labels.dev"):
        (tmp_path / name).write_bytes((fixtures / "senteval" / "SNLI" / name).read_bytes())
    monkeypatch.chdir(tmp_path)  # a short path keeps the table's cells from wrapping
    vectors = str(fixtures / "vectors" / "tiny.glove.txt")
    assert main(["data", "stats", "--task", "snli", "--data-dir", "."]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("│ dev"))
    assert row.split("│")[-2].strip() == "–" and " - " not in row  # no --embeddings: no coverage
    assert MISSING_LEGEND in out
    assert (
        main(["data", "stats", "--task", "snli", "--data-dir", ".", "--embeddings", vectors]) == 0
    )
    out = capsys.readouterr().out
    assert "–" not in out.split("┩", 1)[1] and MISSING_LEGEND not in out  # nothing empty


BAD_VECTORS_LINE = (
    "line 2: expected a word and 2 values; found 1 values in 'cat 0.3'; fix: use GloVe or"
    " word2vec text format: 'word v1 ... vD' per line, optional 'N D' header"
)
KEY_SAYS = "embeddings bad.vec: {line} (read beside the config file: {tmp}/sub/bad.vec)"


@pytest.mark.parametrize(
    ("words", "key", "said"),
    [
        (["--embeddings", "bad.vec"], None, ["--embeddings bad.vec: {line}"]),
        (["--embeddings", "{tmp}/bad.vec"], None, ["--embeddings {tmp}/bad.vec: {line}"]),
        (["--config", "sub/c.yaml"], None, [f"--config sub/c.yaml: {KEY_SAYS}"]),
        (["--config", "{tmp}/sub/c.yaml"], None, [f"--config {{tmp}}/sub/c.yaml: {KEY_SAYS}"]),
        (
            ["--config", "sub/c.yaml"],
            "bogus",
            ["--config sub/c.yaml: unknown key bogus", f"--config sub/c.yaml: {KEY_SAYS}"],
        ),
    ],
)
def test_stats_names_a_bad_vectors_line_by_the_option_that_gave_the_file(
    words, key, said, tmp_path, capsys, monkeypatch
):
    """Issue 56 (outside check at 9564b86): ``data stats`` named a bad vectors line by the
    path it read, absolute for a config file's (``/abs/sub/bad.vec:2: ...``), and beside a
    config file's unknown key said the key alone. Now each line is led by the option or key
    that gave the file, as written, in fit's check's words, every problem at once, nothing
    made (no vector cache entry)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "stsa.fine.train").write_text("1 a cat\n")
    (tmp_path / "sub").mkdir()
    for folder in (tmp_path, tmp_path / "sub"):
        (folder / "bad.vec").write_text("the 0.1 0.2\ncat 0.3\n")
    unknown = f"{key}: 1\n" if key else ""
    config = f"task: sst1\ndata_dir: {tmp_path / 'data'}\nembeddings: bad.vec\n{unknown}"
    (tmp_path / "sub" / "c.yaml").write_text(config)
    before = sorted(tmp_path.rglob("*"))
    flags = [] if words[0] == "--config" else ["--task", "sst1", "--data-dir", "data"]
    assert main(["data", "stats", *flags, *[w.format(tmp=tmp_path) for w in words]]) == 2
    err = capsys.readouterr().err
    lines = problem_lines(err, "data stats") if key else files_lines(err)
    prefix = "sanbench data stats: "
    assert lines == [prefix + s.format(tmp=tmp_path, line=BAD_VECTORS_LINE) for s in said]
    assert sorted(tmp_path.rglob("*")) == before
