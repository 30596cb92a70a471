"""``sanbench suite`` rejects bad arguments before reading data or creating ``--out``."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import files_lines, problem_lines


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--data-dir", "{absent}"], "no such folder"),
        (["--data-dir", "{here}", "--embeddings", "{absent}"], "--embeddings"),
        (["--data-dir", "{here}", "--encoders", "nope"], "--encoders nope: expected one of"),
        (
            ["--data-dir", "{here}", "--encoders", "disan:attention_imp=naive"],
            "disan takes no option attention_imp (did you mean attention_impl?)",
        ),
        (
            ["--data-dir", "{here}", "--max-steps", "0"],
            "--max-steps 0: trains nothing",
        ),
        (["--data-dir", "{here}", "--trainer.max_epochs", "0"], "--trainer.max_epochs 0: trains"),
        (["--data-dir", "{here}", "--seeds", "-1"], "--seeds -1: expected a positive integer"),
        (["--data-dir", "{here}", "--encoding", "utf-9"], "--encoding utf-9: unknown encoding"),
    ],
)
def test_bad_suite_arguments_fail_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    names = {"absent": str(tmp_path / "absent"), "here": str(tmp_path)}
    out = tmp_path / "suite"
    argv = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--out", str(out)]
    try:
        status = main(argv + [part.format(**names) for part in extra])
    except SystemExit as stopped:  # argparse's own errors
        status = stopped.code
    assert status == 2
    assert message in capsys.readouterr().err and not out.exists()


@pytest.mark.slow  # a sanbench process each
@pytest.mark.parametrize(
    "budget",
    [["--trainer.max_epochs", "0"], ["--max-steps", "0"]],
)
def test_a_budget_that_trains_nothing_is_refused_alone_before_any_data_is_read(
    tmp_path: Path, budget: list[str]
) -> None:
    """Issue 54.4: ``--trainer.max_epochs 0`` recorded an ``ok`` row of an untrained model, while
    ``--max-steps 0`` was refused. ``--data-dir`` holds SST-2's files, empty: had the suite read
    data first, it would find no sentence in them. (A folder without them is named beside the
    budget since 465bb87: listing a folder reads no data.)"""
    empty, out = tmp_path / "empty", tmp_path / "suite"
    empty.mkdir()
    for split in ("train", "dev", "test"):
        (empty / f"stsa.binary.{split}").touch()
    words = ["suite", "--tasks", "sst2", "--encoders", "multi_cnn", "--data-dir", str(empty)]
    done = subprocess.run(
        [str(Path(sys.executable).with_name("sanbench")), *words, "--out", str(out), *budget],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=900,  # the first command of a session may build the CPU tiles
    )
    assert done.returncode == 2, done.stderr
    lines = problem_lines(done.stderr, "suite")
    assert len(lines) == 1 and lines[0].startswith(f"sanbench suite: {budget[0]} "), lines
    assert not out.exists()


@pytest.mark.parametrize(
    ("seeds", "tasks", "encoders", "runs"),
    [
        (10**9, "sst2", "multi_cnn", "1,000,000,000"),
        (5001, "sst2,cr", "multi_cnn,bilstm", "10,022"),  # 2 x 5,001 seeds + 2 x 10 folds
    ],
)
def test_an_absurd_grid_is_one_line_saying_its_runs_before_any_work(
    seeds: int,
    tasks: str,
    encoders: str,
    runs: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 56 (H11.3): ``--seeds 1000000000`` expanded the grid in memory (killed after 2 min)."""
    import harness.suite.suite

    def expanded(*args: object) -> None:
        raise AssertionError("the grid was expanded")

    monkeypatch.setattr(harness.suite.suite, "expand_grid", expanded)
    out = tmp_path / "suite"
    argv = ["suite", "--tasks", tasks, "--encoders", encoders, "--out", str(out)]
    assert main([*argv, "--data-dir", str(tmp_path), "--seeds", str(seeds)]) == 2
    (line,) = problem_lines(capsys.readouterr().err, "suite")
    assert f"the grid asks for {runs} runs" in line and "at most 10,000" in line, line
    assert not out.exists()


def test_data_too_small_for_a_dev_share_is_bad_input_as_in_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 breaker: two training lines carve an empty dev set; ``fit`` said so (exit 2),
    ``suite`` ran, failed the run and advised a rerun (exit 1). Now one line, exit 2, no run."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "TREC.train.all").write_text("0 how far ?\n1 who is it ?\n")
    (data / "TREC.test.all").write_text("0 how far ?\n")
    out = tmp_path / "suite"
    argv = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--seeds", "1"]
    assert main([*argv, "--data-dir", str(data), "--max-steps", "1", "--out", str(out)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if "--debug" not in line]
    assert len(lines) == 1 and "the val split read from" in lines[0], lines
    assert "rerun" not in lines[0] and not out.exists()


def test_a_task_file_not_named_yaml_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 breaker: "--data-dir is required unless ... every task is a task file" beside
    "--tasks mine.txt: expected one of ..., or a task file": two lines, at odds."""
    (tmp_path / "mine.txt").write_text("name: mine\n")
    argv = ["suite", "--tasks", str(tmp_path / "mine.txt"), "--encoders", "multi_cnn"]
    assert main([*argv, "--out", str(tmp_path / "s")]) == 2
    lines = problem_lines(capsys.readouterr().err, "suite")
    assert len(lines) == 1 and "a task file's name ends in .yaml or .yml" in lines[0], lines


def test_a_missing_data_dir_names_the_docs_not_a_path_of_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 breaker: "(e.g. ../shared/datasets)" exists only beside the repository."""
    argv = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--out", str(tmp_path / "s")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert 'docs/data.md "Layouts"' in err and "../" not in err, err


def test_a_task_file_whose_folder_has_a_comma_is_taken_whole(tmp_path: Path) -> None:
    """Issue 56 (H31 item 5): ``--tasks 'my, data/mine.yaml,trec'`` was split at every comma,
    and no spelling named that file. An existing file is now taken whole before splitting."""
    from harness.suite.options import SuiteOptions

    task_file = tmp_path / "my, data" / "mine.yaml"
    task_file.parent.mkdir()
    task_file.write_text("name: mine\n")
    options = SuiteOptions(out=tmp_path / "s", tasks=f"trec,{task_file},sst2")
    assert options.task_names == ["trec", str(task_file), "sst2"]
    missing = SuiteOptions(out=tmp_path / "s", tasks=f"{tmp_path}/no,such.yaml")
    # a missing file in an existing folder: one path, named missing (G2 item 3), not split
    assert missing.task_names == [f"{tmp_path}/no,such.yaml"]


def test_a_misspelt_task_file_in_a_folder_with_a_comma_is_one_line_with_the_nearest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 (G2 item 3): ``--tasks own,data/reviewz.yaml`` was split at the comma: '--tasks
    own: expected one of ...' and '/abs/data/reviewz.yaml: no such task file'."""
    (tmp_path / "own,data").mkdir()
    (tmp_path / "own,data" / "reviews.yaml").write_text("name: reviews\n")
    monkeypatch.chdir(tmp_path)
    argv = ["suite", "--tasks", "own,data/reviewz.yaml", "--encoders", "bilstm", "--out", "s"]
    assert main(argv) == 2
    lines = problem_lines(capsys.readouterr().err, "suite")
    assert lines == [
        "sanbench suite: own,data/reviewz.yaml: no such task file (did you mean "
        "own,data/reviews.yaml?)"
    ]
    assert not (tmp_path / "s").exists()


SHORT_GRID = ["--tasks", "trec", "--encoders", "bilstm", "--seeds", "1"]


@pytest.mark.slow  # a whole (one-step) suite
@pytest.mark.parametrize("given", ["config", "inline"])
def test_the_data_folder_of_the_data_section_is_taken_and_recorded_as_typed(
    trec_dir: Path,
    given: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 56 leftovers (f13b items 1, 2): a config file's ``data: {data_dir: D}`` (fit's
    data section, which fit takes the folder from) was refused with "--data-dir is required";
    ``--data '{data_dir: ../d}'`` was recorded JSON-quoted (``"../d"``, a folder of that name
    in the manifest's overrides). Now the folder is taken, read beside the config file, and
    recorded as typed: the recorded command, pasted, finds every run done."""
    shutil.copytree(trec_dir, tmp_path / "d")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    budget = ["--max-steps", "1", "--limit-val-batches", "1", "--out", "s"]
    if given == "config":
        (tmp_path / "s.yaml").write_text("data: {data_dir: d}\n")
        argv = ["suite", "--config", "../s.yaml", *SHORT_GRID, *budget]
    else:
        argv = ["suite", *SHORT_GRID, "--data", "{data_dir: ../d}", *budget]
    monkeypatch.setattr(sys, "argv", ["sanbench", *argv])  # the command recorded
    assert main(argv) == 0
    assert "1 ran" in capsys.readouterr().out
    manifest = json.loads(Path("s/manifest.json").read_text())
    assert manifest["overrides"]["data.data_dir"] == "../d"  # the config's: read beside it
    command = shlex.split(manifest["command"].partition(" && sanbench ")[2])
    monkeypatch.setattr(sys, "argv", ["sanbench", *command])
    assert main(command) == 0
    assert "0 ran, 1 already done" in capsys.readouterr().out


def test_a_data_sections_folder_is_judged_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 leftovers (f13b items 1, 2): a data section's folder is judged as fit judges
    its own, named as written: in a config file by its key (beside the file), inline as
    typed, not JSON-quoted (``--data.data_dir "../nodata"``), in the inline form as typed
    (0aef73e: until then ``--data.data_dir ../nodata``, a flag not typed)."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "s.yaml").write_text("data: {data_dir: empty}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["suite", "--config", "s.yaml", *SHORT_GRID, "--out", "s"]) == 2
    (line,) = files_lines(capsys.readouterr().err)
    said = "sanbench suite: --config s.yaml: data.data_dir empty: expected the files of task"
    assert line.startswith(said) and line.endswith(f"config file: {tmp_path / 'empty'})"), line
    assert main(["suite", *SHORT_GRID, "--data", "{data_dir: ../nodata}", "--out", "s"]) == 2
    lines = files_lines(capsys.readouterr().err)
    assert lines == [
        "sanbench suite: --data {data_dir: ../nodata}: data_dir ../nodata: no such folder"
    ]
    assert not Path("s").exists()


@pytest.mark.parametrize("printing", [[], ["--print_config"]], ids=["run", "print_config"])
@pytest.mark.parametrize("command", ["suite", "tune", "reproduce"])
@pytest.mark.parametrize("given", ["config", "inline"])
def test_a_data_folder_given_twice_differently_is_refused_naming_both_as_typed(
    command: str,
    given: str,
    printing: list[str],
    trec_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--data-dir A`` beside a data section's ``data_dir: B`` (a config file's, inline): the
    checks looked at A and every run read B (the section's key replaced the flag's in each run's
    overrides) until 2026-12-01; now "give one", each named as typed, nothing made. The same
    folder given both ways is one folder, also through a link (``M/../M``, M a link to it):
    taken. --print_config names them as the run does (an inline one was '--data.data_dir
    empty' at d61d8b2)."""
    shutil.copytree(trec_dir, tmp_path / "d")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    grid = {
        "suite": ["--tasks", "trec", "--encoders", "bilstm"],
        "tune": ["--study", "dropout", "--task", "trec", "--encoder", "bilstm"],
        "reproduce": ["--tasks", "trec", "--encoders", "bilstm"],
    }[command]
    if given == "config":
        Path("s.yaml").write_text("data: {data_dir: empty}\n")
        section, named = ["--config", "s.yaml"], "--config s.yaml: data.data_dir empty"
    else:
        section, named = ["--data", "{data_dir: empty}"], "--data {data_dir: empty}: data_dir empty"
    words = [command, *grid, *section, "--data-dir", "d", "--out", "o", *printing]
    assert main(words) == 2
    lines = problem_lines(capsys.readouterr().err, command)
    assert any(f"--data-dir d and {named}" in line and "give one" in line for line in lines)
    assert not Path("o").exists()
    Path("M").symlink_to("empty")  # the same folder through a link and its ``..``: one folder
    same = [command, *grid, *section, "--data-dir", "M/../M", "--out", "o", "--print_config"]
    assert main(same) == 0, capsys.readouterr().err  # printed: no clash (a clash is refused)
    assert not Path("o").exists()


# the other problem beside a data folder clash: (words, the start of its one line) of each command
BESIDE_A_CLASH = {
    "length": (["--max-length", "0"], "--max-length 0: expected a positive number of tokens"),
    "unknown": (["--bogus", "1"], "unknown option --bogus"),
    "count": (["{count}", "0"], "{count} 0: expected a positive integer"),
    "budget": (["--trainer.max_steps", "0"], "--trainer.max_steps 0: trains nothing"),
}


@pytest.mark.parametrize("printing", [[], ["--print_config"]], ids=["run", "print_config"])
@pytest.mark.parametrize("other", sorted(BESIDE_A_CLASH))
@pytest.mark.parametrize("command", ["suite", "tune", "reproduce"])
def test_a_data_folder_clash_is_said_beside_every_other_problem(
    command: str,
    other: str,
    printing: list[str],
    trec_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--data-dir d`` beside a config file's ``data_dir: empty`` and another problem: until
    2026-12-01 the other alone was said (``--max-length 0``, ``--bogus 1``, ``--trials 0``:
    the clash was dropped, the checks judging d) or the clash alone (it hid a budget that
    trains nothing); now both, one line each, nothing made, and so from ``--print_config``."""
    shutil.copytree(trec_dir, tmp_path / "d")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    grid, count = {
        "suite": (["--tasks", "trec", "--encoders", "bilstm"], "--seeds"),
        "tune": (["--study", "dropout", "--task", "trec", "--encoder", "bilstm"], "--trials"),
        "reproduce": (["--tasks", "trec", "--encoders", "bilstm"], "--threads"),
    }[command]
    Path("s.yaml").write_text("data: {data_dir: empty}\n")
    words, said = BESIDE_A_CLASH[other]
    words = [word.format(count=count) for word in words]
    section = ["--config", "s.yaml", "--data-dir", "d", *words, "--out", "o", *printing]
    assert main([command, *grid, *section]) == 2
    lines = problem_lines(capsys.readouterr().err, command)
    clash = f"sanbench {command}: --data-dir d and --config s.yaml: data.data_dir empty: give one"
    assert clash in lines
    assert [line for line in lines if said.format(count=count) in line] != [], lines
    assert len(lines) == 2, lines
    assert not Path("o").exists()


@pytest.mark.parametrize("config", [False, True], ids=["flag", "beside_config_file"])
def test_print_config_without_out_refuses_what_the_run_refuses(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture, config: bool
) -> None:
    """Issue 56 (f19a item 2): ``suite --seeds 0 ... --print_config`` without ``--out`` printed,
    exit 0, while the run refuses ``--seeds 0``; beside a ``-c`` file's unknown key only the key
    was said. Now --print_config refuses every value the run refuses, an ``--out`` left out
    (a file to fill in) or not, every problem at once."""
    (tmp_path / "c.yaml").write_text("bogus: 1\n")
    words = ["suite", "--seeds", "0", "--tasks", "trec", "--encoders", "multi_cnn"]
    words += ["--data-dir", str(trec_dir), "--print_config"]
    words += ["-c", str(tmp_path / "c.yaml")] if config else []
    assert main(words) == 2
    captured = capsys.readouterr()
    lines = [line.removeprefix("sanbench suite: ") for line in problem_lines(captured.err, "suite")]
    bogus = [f"-c {tmp_path / 'c.yaml'}: unknown key bogus"] if config else []
    assert lines == [*bogus, "--seeds 0: expected a positive integer"], lines
    assert captured.out == ""


@pytest.mark.parametrize("out", [False, True], ids=["out_left_out", "out_given"])
def test_print_config_says_the_runs_values_beside_a_refused_option(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture, out: bool
) -> None:
    """Issue 56 (f19a item 2): ``suite --seeds 0 --model.hidden_dim 0 --print_config`` named
    ``--seeds 0`` alone, while the run names both; now every problem at once, as the run."""
    words = ["suite", "--seeds", "0", "--model.hidden_dim", "0", "--tasks", "trec"]
    words += ["--encoders", "multi_cnn", "--data-dir", str(trec_dir), "--print_config"]
    words += ["--out", str(tmp_path / "o")] if out else []
    assert main(words) == 2
    captured = capsys.readouterr()
    lines = [line.removeprefix("sanbench suite: ") for line in problem_lines(captured.err, "suite")]
    assert lines == [
        "--seeds 0: expected a positive integer",
        "--model.hidden_dim 0: expected a positive integer",
    ], lines
    assert captured.out == "" and not (tmp_path / "o").exists()
