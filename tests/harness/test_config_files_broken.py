"""A broken ``--config`` file (not YAML, a list, an unknown key, not there) and a missing
section file a config names are said beside every other problem of the command line, in
sanbench's words, by every command (outside check 6z items 3 and 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines

# each kind of broken config file: its text (None: not there), its line's fragment
BROKEN = {
    "list": (
        "- a\n- b\n",
        "expected a mapping of options, as --print_config writes (found a list)",
    ),
    "not-yaml": ("a: [\n", "not YAML (line 2: "),
    "unknown": ("bogus_top: 1\n", "unknown key bogus_top"),
    "missing": (None, "no such file: "),
}
# each command's words with a value it refuses, and that value's line's fragment
COMMANDS = {
    "fit": (
        "fit --task trec --encoder bilstm --data-dir /nonexist --trainer.max_steps 0",
        "max_steps 0",
    ),
    "suite": (
        "suite --tasks trec --encoders bilstm --data-dir /nonexist --seeds 0 --out o",
        "--seeds 0",
    ),
    "tune": (
        "tune --study dropout --task trec --encoder bilstm --data-dir /nonexist --trials 0 --out o",
        "--trials 0",
    ),
    "profile": ("profile --batch-size 0 --out o", "--batch-size 0"),
    "data stats": ("data stats --task treec --data-dir /nonexist", "--task treec"),
    "reproduce": ("reproduce --data-dir /nonexist --out o --max-length 0", "max-length"),
    "report": ("report /nonexist --out o --bogus", "--bogus"),
}


@pytest.mark.parametrize("kind", list(BROKEN))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_broken_config_file_is_said_beside_every_other_problem(
    command: str,
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, fragment = BROKEN[kind]
    monkeypatch.chdir(tmp_path)
    if text is not None:
        Path("c.yaml").write_text(text)
    words, value = COMMANDS[command]
    assert main([*words.split(), "--config", "c.yaml"]) == 2
    assert sorted(os.listdir(tmp_path)) == (["c.yaml"] if text is not None else [])
    lines = problem_lines(capsys.readouterr().err, command)
    assert lines[0].startswith(f"sanbench {command}: --config c.yaml: "), lines
    assert fragment in lines[0], lines
    assert any(value in line for line in lines[1:]), lines
    assert not any("not accepted" in line or "No such file" in line for line in lines), lines


@pytest.mark.parametrize("command", ["suite", "tune", "reproduce"])
def test_a_config_files_missing_section_files_are_said_beside_the_rest(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 4: ``data: nothere.yaml`` and ``model: alsonot.yaml`` in a --config file hid
    ``--seeds 0`` and ``--data-dir /nonexist``."""
    monkeypatch.chdir(tmp_path)
    Path("c").mkdir()
    Path("c/cfg6.yaml").write_text("data: nothere.yaml\nmodel: alsonot.yaml\n")
    words, value = {
        "suite": ("suite --tasks trec --encoders bilstm --seeds 0", "--seeds 0"),
        "tune": ("tune --study dropout --task trec --encoder bilstm --trials 0", "--trials 0"),
        "reproduce": ("reproduce --max-length 0", "max-length"),
    }[command]
    line = f"{words} --config c/cfg6.yaml --data-dir /nonexist --out o"
    assert main(line.split()) == 2
    assert sorted(os.listdir(tmp_path)) == ["c"]
    lines = problem_lines(capsys.readouterr().err, command)
    assert sum("data nothere.yaml: no such file: c/nothere.yaml" in x for x in lines) == 1, lines
    assert sum("model alsonot.yaml: no such file: c/alsonot.yaml" in x for x in lines) == 1
    assert any(value in x for x in lines), lines
    assert any("--data-dir /nonexist: no such folder" in x for x in lines), lines


# a --config file's values of each command (outside check 7z items 4-7): the command's words
# (beside a value typed that it refuses), the file's text, each line's fragment said once
CONFIG_VALUES = {
    "suite lists": (
        "suite --data-dir /nonexist --seeds 0 --out o",
        "tasks: [trec]\nencoders: [bilstm, treec]\n",
        [
            "--seeds 0: expected",
            "--data-dir /nonexist: no such folder",
            "--config c.yaml: encoders treec: expected",
        ],
    ),
    "reproduce lists": (
        "reproduce --data-dir /nonexist --threads 0 --out o",
        "tasks: [trec, cr]\nencoders: [bilstm]\n",
        ["--threads 0: expected", "--data-dir /nonexist: no such folder"],
    ),
    "tune lists": (
        "tune --batch-size 0 --out o",
        "study: block-length-memory\nlengths: [32, 64]\ntrials: 0\n",
        ["--batch-size 0: expected", "--config c.yaml: trials 0: expected"],
    ),
    "profile lists": (
        "profile --batch-size 0 --out o",
        "encoders: [bilstm, multi_cnn]\nlengths: [8, 16]\npredict_lengths: [32]\n",
        ["--batch-size 0: expected"],
    ),
    "fit data": (
        "fit --task trec --encoder bilstm --out o",
        "data: {encoding: utf-99, batch_size: 0, data_dir: /nonexist, embeddings: /nonexist.txt}\n",
        [
            "--config c.yaml: data.batch_size 0: expected",
            "--config c.yaml: data.encoding utf-99: unknown encoding",
            "--config c.yaml: data.data_dir /nonexist: no such folder",
            "--config c.yaml: data.embeddings /nonexist.txt: no such file",
        ],
    ),
    "suite encoding": (
        "suite --tasks trec --encoders bilstm --data-dir /nonexist --out o",
        "encoding: utf-99\nout: afile\n",
        [
            "--config c.yaml: encoding utf-99: unknown encoding",
            "--data-dir /nonexist: no such folder",
            "--config c.yaml: out afile is a file",
        ],
    ),
    "tune paths": (
        "tune --study dropout --task trec --encoder bilstm --out o",
        "data_dir: /nonexist\nembeddings: /nonexist.txt\nencoding: utf-99\n",
        [
            "--config c.yaml: encoding utf-99: unknown encoding",
            "--config c.yaml: data_dir /nonexist: no such folder",
            "--config c.yaml: embeddings /nonexist.txt: no such file",
        ],
    ),
    "profile values": (
        "profile --out o",
        "lengths: [8, -3]\nencoders: disan2\nbatch_size: 0\n",
        [
            "--config c.yaml: batch_size 0: expected",
            "--config c.yaml: lengths [8, -3]: expected positive integer lengths",
            "--config c.yaml: encoders disan2: expected one of",
        ],
    ),
    "data stats values": (
        "data stats",
        "task: treec\nencoding: utf-99\nlayout: kimm\n",
        [
            "--config c.yaml: task treec: expected one of",
            "--config c.yaml: encoding utf-99: unknown encoding",
            "--config c.yaml: layout kimm: expected one of",
        ],
    ),
    "predict values": (
        "predict --ckpt nockpt.ckpt --out p.csv",
        "input: nothere.txt\nencoding: utf-99\nbatch_size: 0\n",
        [
            "--ckpt nockpt.ckpt: no such file",
            "--config c.yaml: input nothere.txt: no such file",
            "--config c.yaml: batch_size 0: expected",
            "--config c.yaml: encoding utf-99: unknown encoding",
        ],
    ),
    "encode values": (
        "encode --ckpt nockpt.ckpt --out p.npy",
        "input: nothere.txt\nencoding: utf-99\n",
        [
            "--ckpt nockpt.ckpt: no such file",
            "--config c.yaml: input nothere.txt: no such file",
            "--config c.yaml: encoding utf-99: unknown encoding",
        ],
    ),
    "report out": (
        "report /nonexist",
        "out: afile\n",
        ["/nonexist: no such folder", "--config c.yaml: out afile is a file"],
    ),
    "report runs": (
        "report --out afile",
        "runs: /nonexist\n",
        ["--config c.yaml: runs /nonexist: no such folder", "--out afile is a file"],
    ),
    # outside check 8z items 10, 8, 7, 6: a value of no list's shape for an option of one or
    # more words, said as the file writes it, its key left out to judge the rest
    "report runs mapping": (
        "report --out o",
        "runs: {a: 1}\n",
        ["--config c.yaml: runs {a: 1}: expected one run folder or a list of run folders"],
    ),
    "report runs empty": (
        "report --out o",
        "runs: []\n",
        ["--config c.yaml: runs []: expected at least one run folder"],
    ),
    "report runs numbers": (
        "report --out afile",
        "runs: [5, /nonexist]\n",
        [
            "--config c.yaml: runs 5: no such folder",
            "--config c.yaml: runs /nonexist: no such folder",
            "--out afile is a file",
        ],
    ),
    "report runs number": (
        "report --out afile",
        "runs: 5\n",
        ["--config c.yaml: runs 5: no such folder", "--out afile is"],
    ),
    "suite shapes": (
        "suite --data-dir /nonexist --seeds 0 --out o",
        "tasks: []\nencoders: {bilstm: 1}\n",
        [
            "--config c.yaml: tasks []: expected at least one task",
            "--config c.yaml: encoders {bilstm: 1}: expected one encoder or a list of encoders",
            "--seeds 0: expected",
            "--data-dir /nonexist: no such folder",
        ],
    ),
    "suite scalar": (
        "suite --data-dir /nonexist --seeds 0 --out o",
        "tasks: 5\nencoders: [[bilstm]]\n",
        [
            "--config c.yaml: tasks 5: expected one of",
            "--config c.yaml: encoders [[bilstm]]: expected one encoder or a list of encoders",
            "--seeds 0: expected",
            "--data-dir /nonexist: no such folder",
        ],
    ),
    "profile scalar": (
        "profile --batch-size 0 --out o",
        "lengths: 8\nencoders: []\n",
        ["--batch-size 0: expected", "--config c.yaml: encoders []: expected at least one encoder"],
    ),
    "profile empty lengths": (
        "profile --batch-size 0 --out o",
        "lengths: []\n",
        ["--batch-size 0: expected", "--config c.yaml: lengths []: expected at least one length"],
    ),
    "tune scalar": (
        "tune --batch-size 0 --out o",
        "study: block-length-memory\nlengths: 32\ntrials: 0\n",
        ["--batch-size 0: expected", "--config c.yaml: trials 0: expected"],
    ),
    # items 9 and 6: a value the parser refuses (a list or a mapping for a path, a number
    # for a section) said as the file writes it, beside the rest, not as a flag
    "suite data_dir list": (
        "suite --tasks trec --out o",
        "data_dir: [a]\nseeds: 0\n",
        ["--config c.yaml: data_dir [a]: expected a path", "--config c.yaml: seeds 0: expected"],
    ),
    "suite model number": (
        "suite --tasks trec --data-dir /nonexist --out o",
        "model: 5\nseeds: 0\n",
        [
            "--config c.yaml: model 5: expected a mapping",
            "--config c.yaml: seeds 0: expected",
            "--data-dir /nonexist: no such folder",
        ],
    ),
    "data stats mapping": (
        "data stats",
        "data_dir: {a: 1}\ntask: treec\n",
        [
            "--config c.yaml: data_dir {a: 1}: expected a path",
            "--config c.yaml: task treec: expected one of",
        ],
    ),
    "reproduce out": (
        "reproduce --data-dir /nonexist --threads 0",
        "out: afile\n",
        [
            "--threads 0: expected",
            "--data-dir /nonexist: no such folder",
            "--config c.yaml: out afile is a file",
        ],
    ),
    # outside check 9z item 4 and a leftover: profile's modes as a list, like its encoders;
    # a name of a list (or of a comma list) said as the file writes it, not as a flag
    "profile modes list": (
        "profile --batch-size 0 --out o",
        "modes: [infer, trian]\nencoders: [bilstmm, disan]\n",
        [
            "--batch-size 0: expected",
            "--config c.yaml: modes [infer, trian]: bad part trian: expected",
            "--config c.yaml: encoders bilstmm: expected one of",
        ],
    ),
    "profile comma list names": (
        "profile --out o",
        "encoders: bilstmm,disan2\n",
        [
            "--config c.yaml: encoders bilstmm: expected one of",
            "--config c.yaml: encoders disan2: expected one of",
        ],
    ),
}


@pytest.mark.parametrize("case", list(CONFIG_VALUES))
def test_a_config_files_values_are_said_as_the_file_writes_them_beside_the_rest(
    case: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 6: a YAML list for an option of several values (``tasks: [trec]``) was refused
    alone ('expected a string'), hiding the rest; item 4: a file's value was said as a flag
    never typed (``--encoding utf-99``)."""
    monkeypatch.chdir(tmp_path)
    words, text, fragments = CONFIG_VALUES[case]
    Path("c.yaml").write_text(text)
    Path("afile").write_text("")  # an --out that is a file
    command = words.split()[0] if not words.startswith("data ") else "data stats"
    assert main([*words.split(), "--config", "c.yaml"]) == 2
    assert sorted(os.listdir(tmp_path)) == ["afile", "c.yaml"]
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("(see ")]
    for fragment in fragments:
        assert sum(fragment in line for line in lines) == 1, (fragment, lines)
    assert len(lines) == len(fragments), lines
    assert "expected a string" not in err, lines
    assert all(line.startswith(f"sanbench {command}: ") for line in lines), lines


@pytest.mark.parametrize("command", ["tune", "predict"])
def test_a_path_in_a_config_file_is_read_beside_it_and_said_as_written(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 5: tune's ``space: sp.yaml`` was said ``--space ../c/sp.yaml``, a path never
    written; item 9: predict read a config's ``input:`` from the working folder, where section
    files and ``space:`` are read beside the config file."""
    Path(tmp_path / "c").mkdir()
    Path(tmp_path / "w").mkdir()
    monkeypatch.chdir(tmp_path / "w")
    Path("../c/sp.yaml").write_text("model.dropout: {low: 0.1, high: 3}\n")
    Path("../c/in.txt").write_text("a sentence\n")
    if command == "tune":
        Path("../c/t.yaml").write_text(
            "study: search\ntask: trec\nencoder: bilstm\nspace: sp.yaml\n"
        )
        words = "tune --config ../c/t.yaml --data-dir /nonexist --out o"
        said = "--config ../c/t.yaml: space sp.yaml: model.dropout high 3: expected"
    else:
        Path("../c/t.yaml").write_text("input: in.txt\nbatch_size: 0\n")
        words = "predict --config ../c/t.yaml --ckpt nockpt.ckpt --out p.csv"
        said = "--config ../c/t.yaml: batch_size 0: expected"
    assert main(words.split()) == 2
    assert os.listdir(".") == []
    lines = problem_lines(capsys.readouterr().err, command)
    assert sum(line.startswith(f"sanbench {command}: {said}") for line in lines) == 1, lines
    assert str(tmp_path / "c" / "sp.yaml") in str(lines) or command == "predict", lines
    assert not any("--space" in line or "--input" in line for line in lines), lines
    assert len(lines) == 2, lines  # and the data folder's, or the checkpoint's


@pytest.mark.parametrize("given", [["--modes", "train"], []])
def test_profiles_modes_list_in_a_config_file_is_taken_and_a_later_flag_replaces_it(
    given: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside check 9z item 4: ``modes: [infer]`` was printed by --print_config as the
    default (infer,train) and refused by the run ('expected a string'), a later ``--modes
    train`` called wrong too; the list is taken as --print_config prints it, a flag wins."""
    monkeypatch.chdir(tmp_path)
    Path("c.yaml").write_text("modes: [infer]\n")
    words = ["profile", "--config", "c.yaml", *given]
    assert main([*words, "--print_config"]) == 0
    printed = capsys.readouterr().out
    assert ("modes: train" in printed) if given else ("modes:\n- infer\n" in printed), printed
    assert main([*words, "--batch-size", "0", "--out", "o"]) == 2
    lines = problem_lines(capsys.readouterr().err, "profile")
    assert len(lines) == 1 and "--batch-size 0: " in lines[0], lines


SECTION_FILE_COMMANDS = {
    "suite": "suite --tasks trec --data-dir /nonexist --out o",
    "tune": "tune --study dropout --task trec --encoder bilstm --data-dir /nonexist --out o",
    "reproduce": "reproduce --data-dir /nonexist --out o",
}


@pytest.mark.parametrize("command", list(SECTION_FILE_COMMANDS))
def test_a_section_files_problems_are_said_in_fits_words_by_every_command(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside check 9z item 6: suite, tune and reproduce said a section file's problems in
    an older wording than fit and docs/training.md ('unknown key trainer.bogus', 'expected a
    mapping'); every command says fit's, beside the rest."""
    monkeypatch.chdir(tmp_path)
    Path("t.yaml").write_text("bogus: 1\n")
    Path("ml.yaml").write_text("- a\n")
    Path("ct.yaml").write_text("trainer: t.yaml\n")
    words = SECTION_FILE_COMMANDS[command].split()
    assert main([*words, "--trainer", "t.yaml", "--model", "ml.yaml"]) == 2
    lines = problem_lines(capsys.readouterr().err, command)
    assert f"sanbench {command}: --trainer t.yaml: unknown key bogus" in lines, lines
    found = (
        f"sanbench {command}: --model ml.yaml: expected a mapping of model's keys (found a list)"
    )
    assert found in lines, lines
    assert main([*words, "-c", "ct.yaml"]) == 2
    lines = problem_lines(capsys.readouterr().err, command)
    assert f"sanbench {command}: -c ct.yaml: trainer t.yaml: unknown key bogus" in lines, lines
    assert sorted(os.listdir(tmp_path)) == ["ct.yaml", "ml.yaml", "t.yaml"]
