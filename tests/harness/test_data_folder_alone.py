"""A data folder holding none of the tasks' files, alone, is one line led by the option or the
config file's key naming it, in every command that reads the data (issue 56, outside check
10z items 3 and 9): suite, reproduce, tune and fit said it unlabelled, per task, by the path
as resolved, unless another problem (``--out afile``) stood beside it; ``data stats`` with a
misspelt ``task: treec`` did not judge the folder as of its nearest task."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.harness.refusal_scratch import CFG, refused, scratch

# each command's words without the data folder, and its run's options in a config file
COMMANDS = {
    "suite": (
        ["suite", "--tasks", "trec,subj", "--encoders", "bilstm", "--out", "runs/s"],
        "tasks: [trec, subj]\nencoders: [bilstm]\nout: ../runs/s\n",
    ),
    "reproduce": (
        ["reproduce", "--tasks", "trec,subj", "--encoders", "bilstm", "--out", "runs/r"],
        "tasks: [trec, subj]\nencoders: [bilstm]\nout: ../runs/r\n",
    ),
    "tune": (
        ["tune", "--study", "block-length", "--task", "trec", "--encoder", "bi_blosan"],
        "study: block-length\ntask: trec\nencoder: bi_blosan\nout: ../runs/t\n",
    ),
    "fit": (
        ["fit", "--data.task", "trec", "--model.encoder", "bilstm", "--out", "runs/f"],
        "data:\n  task: trec\nmodel:\n  encoder: bilstm\nout: ../runs/f\n",
    ),
}
TASKS = {"suite": "tasks 'trec', 'subj'", "reproduce": "tasks 'subj', 'trec'"}


def _lines(err: str, command: str) -> list[str]:
    """``err``'s problem lines, the command's name and any pointer to the help left out."""
    lines = [line.removeprefix(f"sanbench {command}: ") for line in err.splitlines()]
    return [line for line in lines if not line.endswith("--help)")]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_data_folder_alone_is_one_labelled_line(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--data-dir empty: expected the files of tasks 'trec', 'subj' ...``, once; it was
    ``/abs/empty: expected the files of task 'trec' ...`` and one for 'subj'."""
    words, _ = COMMANDS[command]
    with scratch(trec_dir, {"empty/": ""}) as root:
        err = refused(root, [*words, "--data-dir", "empty"], capsys)
    tasks = TASKS.get(command, "task 'trec'")
    [line] = _lines(err, command)
    assert line.startswith(f"--data-dir empty: expected the files of {tasks}"), line


@pytest.mark.parametrize("config", ["cfg/c.yaml", "L/c.yaml"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_config_files_data_folder_alone_is_said_as_written(
    command: str, config: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--config cfg/c.yaml: data_dir ../empty: ...`` (fit: ``data.data_dir``), once, with
    the folder looked in, as the vectors' line says it; also read through a link ``L`` to
    ``cfg`` (issue 56: there the check's line named the folder absolute, ``... in /abs/empty or
    its subfolders``, so the note was left out, and the path then said as written)."""
    _, text = COMMANDS[command]
    key = "data_dir: ../empty\n"
    text = text.replace("data:\n", f"data:\n  {key}") if command == "fit" else text + key
    with scratch(trec_dir, {**CFG, "empty/": "", "cfg/c.yaml": text}) as root:
        (root / "L").symlink_to("cfg")
        err = refused(root, [command, "--config", config], capsys)
    tasks = TASKS.get(command, "task 'trec'")
    key = "data.data_dir" if command == "fit" else "data_dir"
    [line] = _lines(err, command)
    assert line.startswith(f"--config {config}: {key} ../empty: expected the files of {tasks}")
    assert line.endswith(f" (read beside the config file: {root / 'empty'})"), line


def test_data_stats_judges_the_folder_as_of_a_misspelt_tasks_nearest(
    trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``task: treec`` beside ``data_dir: ../empty``: the folder is said as of trec, as fit,
    suite and tune say it; it was the task's line alone."""
    text = "task: treec\ndata_dir: ../empty\n"
    with scratch(trec_dir, {**CFG, "empty/": "", "cfg/c.yaml": text}) as root:
        err = refused(root, ["data", "stats", "--config", "cfg/c.yaml"], capsys)
    lines = _lines(err, "data stats")
    assert len(lines) == 2, lines
    assert lines[0].startswith("--config cfg/c.yaml: task treec: expected one of"), lines
    folder = "--config cfg/c.yaml: data_dir ../empty: expected the files of task 'trec'"
    assert lines[1].startswith(folder), lines


@pytest.mark.parametrize("aggregate_only", ["yes", "no"])
def test_a_config_files_out_alone_is_said_as_written(
    aggregate_only: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``out: afile`` in the file, alone: ``--out afile is a file`` named a flag nobody typed
    (issue 56, outside check 10z item 7); it is the file's ``out afile``."""
    text = f"aggregate_only: {aggregate_only}\ntasks: trec\nencoders: bilstm\nout: ../afile\n"
    with scratch(trec_dir, {**CFG, "cfg/c.yaml": text}) as root:
        err = refused(root, ["suite", "--config", "cfg/c.yaml", "--data-dir", "trec"], capsys)
    [line] = _lines(err, "suite")
    assert line.startswith("--config cfg/c.yaml: out ../afile is a file, not a folder"), line


BAD_VECTORS = {"vec.txt": "the 0.1 0.2\nbad x y\n"}
# a refused option beside the folder: a misspelt preset, tune's --study left out
REFUSED_TOO = {
    "suite": lambda words: [*words, "--seeds", "0"],
    "reproduce": lambda words: [*words, "--preset", "quick"],
    "tune": lambda words: words[:1] + words[3:],
    "fit": lambda words: [*words, "--model.dropout", "2"],
}


@pytest.mark.parametrize("refused_too", [False, True])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_bad_vectors_file_is_said_beside_the_data_folder(
    command: str, refused_too: bool, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every problem at once (issue 56, outside check at f71dacf item 2): a vectors file's bad
    line was hidden beside a refused option (``--preset quick``, tune without ``--study``) and
    in fit, which said the data folder alone."""
    words, _ = COMMANDS[command]
    words = REFUSED_TOO[command](words) if refused_too else words
    words = [*words, "--data-dir", "empty", "--embeddings", "vec.txt"]
    with scratch(trec_dir, {"empty/": "", **BAD_VECTORS}) as root:
        err = refused(root, words, capsys)
    lines = _lines(err, command)
    assert any(line.startswith("--data-dir empty: expected the files of") for line in lines)
    assert any("found 2 bad value(s): 'x', 'y'" in line for line in lines), lines


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_config_files_vectors_and_folder_advice_are_said_as_written(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56, outside check at f71dacf item 3: the file's ``embeddings: ../vec.txt`` was
    said ``vec.txt:2: ...`` (neither the file nor its key), and the folder's advice from a
    config file ``in empty or its subfolders ... Point --data-dir at ...``: a path relative to
    the working folder and a flag nobody typed."""
    _, text = COMMANDS[command]
    keys = "data_dir: ../empty\nembeddings: ../vec.txt\n"
    fit = command == "fit"
    text = text.replace("data:\n", "data:\n" + textwrap.indent(keys, "  ")) if fit else text + keys
    files = {**CFG, "empty/": "", **BAD_VECTORS, "cfg/c.yaml": text}
    with scratch(trec_dir, files) as root:
        err = refused(root, [command, "--config", "cfg/c.yaml"], capsys)
    lines = _lines(err, command)
    prefix = "data." if fit else ""
    vectors = f"--config cfg/c.yaml: {prefix}embeddings ../vec.txt: line 2: expected 2 finite"
    assert any(line.startswith(vectors) for line in lines), lines
    [folder] = [line for line in lines if line.startswith(f"--config cfg/c.yaml: {prefix}data_dir")]
    advice = folder.split("`")[0].lower()  # a command quoted to run keeps its flag
    assert "point --data-dir" not in advice and " in empty " not in advice, folder
    assert f"point {prefix}data_dir at" in advice, folder


OUT_CONFIGS = {
    "suite": "aggregate_only: yes\ntasks: trec\nencoders: bilstm\ndata_dir: ../trec\n",
    "reproduce": "tasks: trec\nencoders: bilstm\ndata_dir: ../trec\n",
    "tune": "study: dropout\ntask: trec\nencoder: bilstm\ndata_dir: ../trec\n",
    "profile": "preset: quick\n",
    "fit": "model: {encoder: bilstm}\ndata: {task: trec, data_dir: ../trec}\n",
    "report": "runs: [../runs/f1]\n",
}


@pytest.mark.parametrize("command", list(OUT_CONFIGS))
def test_every_commands_config_out_alone_is_said_as_written(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56, outside check at f71dacf item 4: ``out: ../afile`` alone was ``--out afile is
    a file`` (a flag nobody typed) in reproduce, tune, profile, fit and report (suite's was a
    special case of its own): every command's ``--out`` refused alone is said as written."""
    text = OUT_CONFIGS[command] + "out: ../afile\n"
    files = {**CFG, "runs/f1/": "", "cfg/c.yaml": text}
    with scratch(trec_dir, files) as root:
        err = refused(root, [command, "--config", "cfg/c.yaml"], capsys)
    [line] = _lines(err, command)
    assert line.startswith("--config cfg/c.yaml: out ../afile is a file, not a folder"), line
