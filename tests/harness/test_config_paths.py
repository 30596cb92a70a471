"""One rule for a relative path read from a ``--config`` file, whatever its key and command:
beside the config file (as jsonargparse reads one, and as section files, ``space:`` and
``input:`` were), and a refusal of one names the folder looked in (issue 56, b8z item 11:
``ckpt:`` and ``data_dir:`` were read from the working folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main

DATA = Path("/work/shared/datasets/kim2014")

# command, its other words, the key (as the file writes it), a file's text setting it to VALUE
CASES = [
    ("data stats", "", "data_dir", "task: trec\ndata_dir: VALUE\n"),
    ("data stats", "", "embeddings", "task: trec\ndata_dir: /nonexist\nembeddings: VALUE\n"),
    ("predict", "--out p.csv", "ckpt", "ckpt: VALUE\ninput: /nonexist.txt\n"),
    ("encode", "--out e.npy", "ckpt", "ckpt: VALUE\ninput: /nonexist.txt\n"),
    ("suite", "--out s", "data_dir", "tasks: trec\nencoders: bilstm\ndata_dir: VALUE\n"),
    ("suite", "--out s", "embeddings", "tasks: trec\nencoders: bilstm\nembeddings: VALUE\n"),
    ("reproduce", "--out r", "data_dir", "tasks: trec\nencoders: bilstm\ndata_dir: VALUE\n"),
    (
        "tune",
        "--out t",
        "data_dir",
        "study: dropout\ntask: trec\nencoder: bilstm\ndata_dir: VALUE\n",
    ),
    ("report", "--out rep", "runs", "runs: [VALUE]\n"),
    ("fit", "--encoder bilstm --out f", "data.data_dir", "data: {task: trec, data_dir: VALUE}\n"),
]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=st.sampled_from(CASES), depth=st.integers(0, 2))
def test_a_relative_path_of_a_config_file_is_read_beside_it_from_any_working_folder(
    case: tuple[str, str, str, str],
    depth: int,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same missing path (``../t/nothere``, relative to the config's folder ``c``) is
    named as the file writes it, with the absolute path looked at, from ``w`` and from
    folders under it: never a path of the working folder."""
    command, others, key, text = case
    root = tmp_path_factory.mktemp("paths")
    (root / "c").mkdir()
    work = root.joinpath("w", *["d"] * depth)
    work.mkdir(parents=True)
    config = os.path.relpath(root / "c" / "x.yaml", work)
    (root / "c" / "x.yaml").write_text(text.replace("VALUE", "../t/nothere"))
    before = os.getcwd()
    os.chdir(work)
    try:
        capsys.readouterr()
        assert main([*command.split(), "--config", config, *others.split()]) == 2
        lines = capsys.readouterr().err.splitlines()
    finally:
        os.chdir(before)
    said = f"--config {config}: {key} ../t/nothere: no such"
    looked = f"(read beside the config file: {root / 't' / 'nothere'})"
    assert any(line.startswith(f"sanbench {command}: {said}") for line in lines), lines
    assert any(line.startswith(f"sanbench {command}: {said}") and looked in line for line in lines)
    assert list(work.iterdir()) == [], "nothing made"


@pytest.mark.skipif(not DATA.is_dir(), reason="needs the real data")
@pytest.mark.parametrize("depth", [0, 2])
def test_one_data_stats_config_works_from_two_working_folders(
    depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``data_dir: ../k`` beside the config (``k`` a link to the data) reads the data from the
    config's folder's neighbour, wherever the command runs."""
    (tmp_path / "c").mkdir()
    (tmp_path / "k").symlink_to(DATA)
    (tmp_path / "c" / "ds.yaml").write_text("task: trec\ndata_dir: ../k\n")
    work = tmp_path.joinpath("w", *["d"] * depth)
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    config = os.path.relpath(tmp_path / "c" / "ds.yaml", work)
    assert main(["data", "stats", "--config", config, "--json"]) == 0, capsys.readouterr().err
    assert '"examples": 5452' in capsys.readouterr().out


def _pipe(text: str) -> str:
    """A pipe holding ``text``, named as ``--config <(printf ...)`` names one (``/dev/fd/N``)."""
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    return f"/dev/fd/{read}"


FIT_TEXT = "data: {task: trec, data_dir: k}\nmodel: {encoder: bilstm}\nout: runs/pipe\n"


@pytest.mark.parametrize("name", ["pipe", "proc"])
def test_a_config_with_no_folder_of_its_own_keeps_the_working_folder(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--config <(printf ...)`` (the docs' own example; b10z item 1): its relative paths are
    the working folder's, not ``/dev/fd``'s."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k").mkdir()
    config = _pipe(FIT_TEXT)
    if name == "proc":
        config = config.replace("/dev/fd/", "/proc/self/fd/")
    capsys.readouterr()
    assert main(["fit", "--config", config, "--print_config"]) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert f"data_dir: {tmp_path / 'k'}\n" in printed
    assert f"out: {tmp_path / 'runs' / 'pipe'}\n" in printed


def test_a_pipe_configs_missing_folder_is_named_from_the_working_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal names no ``/dev/fd`` folder, and says nothing of a folder beside the pipe."""
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["data", "stats", "--config", _pipe("task: trec\ndata_dir: nothere\n")]) == 2
    err = capsys.readouterr().err
    assert "/dev/fd" not in err.replace("--config /dev/fd/", ""), err
    assert "data_dir nothere: no such" in err, err


def test_a_section_files_paths_are_read_beside_that_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``data: sub/d.yaml`` in ``c/f.yaml`` (b10z item 2): d.yaml's ``data_dir: ../../k`` is
    ``k`` beside ``c``, printed absolute and normalised (item 10), wherever fit runs; a
    missing one is refused naming the folder looked in; ``--data c/sub/d.yaml`` alike."""
    (tmp_path / "c" / "sub").mkdir(parents=True)
    (tmp_path / "k").mkdir()
    (tmp_path / "c" / "f.yaml").write_text("data: sub/d.yaml\nmodel: {encoder: bilstm}\n")
    (tmp_path / "c" / "sub" / "d.yaml").write_text("task: trec\ndata_dir: ../../k\n")
    (tmp_path / "c" / "sub" / "e.yaml").write_text("task: trec\ndata_dir: ../../nothere\n")
    work = tmp_path / "w" / "d"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    for words in (["--config", "../../c/f.yaml"], ["--data", "../../c/sub/d.yaml"]):
        capsys.readouterr()
        assert main(["fit", "--encoder", "bilstm", *words, "--print_config"]) == 0
        assert f"data_dir: {tmp_path / 'k'}\n" in capsys.readouterr().out, words
    capsys.readouterr()
    assert main(["fit", "--config", "../../c/f.yaml", "--data", "../../c/sub/e.yaml"]) == 2
    err = capsys.readouterr().err
    said = "--data ../../c/sub/e.yaml: data_dir ../../nothere: no such folder"
    assert f"{said} (read beside the config file: {tmp_path / 'nothere'})" in err, err
    assert list(work.iterdir()) == [], "nothing made"


@pytest.mark.parametrize("data", ["d1.yaml", "{data_dir: ../k}"])
def test_suite_prints_a_section_files_and_an_inline_sections_paths_absolute(
    data: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """suite's ``data:`` (its runs' fit section) of a config, as a file or inline: its
    ``data_dir`` is printed absolute and normalised, as fit's (b10z item 2), wherever the
    printed file is saved."""
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "d1.yaml").write_text("data_dir: ../k\n")
    (tmp_path / "c" / "s.yaml").write_text(f"tasks: trec\nencoders: bilstm\ndata: {data}\n")
    work = tmp_path / "w"
    work.mkdir()
    monkeypatch.chdir(work)
    capsys.readouterr()
    assert main(["suite", "-c", "../c/s.yaml", "--out", "o", "--print_config"]) == 0
    assert f"data:\n  data_dir: {tmp_path / 'k'}\n" in capsys.readouterr().out


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    depth=st.integers(0, 2),
    work_depth=st.integers(0, 1),
    linked=st.booleans(),
    given_as=st.sampled_from(["config", "section", "flag"]),
)
def test_a_path_with_dotdot_after_a_symlink_means_what_the_kernel_reads(
    depth: int,
    work_depth: int,
    linked: bool,
    given_as: str,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``L/f.yaml`` (L a link to ``w/c``) whose section file ``sub/.../d.yaml`` says
    ``data_dir: ../../k``, ``--data L/sub/d.yaml``, ``--data-dir L/../k``: the folder is
    ``w/k``, as ``ls`` finds it, never ``L``'s own folder's ``k`` (``L/..`` is not dropped by
    name: issue 56, f71dacf printed ``alt/k``); so is ``out: ../runs/f1``; the printed config
    pasted in another folder names the same folders, and a missing absolute folder of it is
    not said to be read beside the config file."""
    root = tmp_path_factory.mktemp("links")
    sub = root.joinpath("w", "c", *["s"] * depth)
    sub.mkdir(parents=True)
    (root / "w" / "k").mkdir()
    (root / "alt" / "x").mkdir(parents=True)
    (root / "alt" / "L").symlink_to(root / "w" / "c" if linked else Path("../w/c"))
    inner = "/".join(["s"] * depth)
    (sub / "d.yaml").write_text(f"task: trec\ndata_dir: {'../' * (depth + 1)}k\n")
    section = f"{inner}/d.yaml" if depth else "d.yaml"
    (root / "w" / "c" / "f.yaml").write_text(
        f"model: {{encoder: bilstm}}\ndata: {section}\nout: ../runs/f1\n"
    )
    work = root.joinpath("alt", *["x"] * work_depth)
    up = "../" * work_depth
    words = {
        "config": ["-c", f"{up}L/f.yaml"],
        "section": ["--data", f"{up}L/{section}", "--out", f"{up}L/../runs/f1"],
        "flag": ["--task", "trec", "--data-dir", f"{up}L/../k", "--out", f"{up}L/../runs/f1"],
    }[given_as]
    before = os.getcwd()
    os.chdir(work)
    try:
        capsys.readouterr()
        assert main(["fit", "--encoder", "bilstm", *words, "--print_config"]) == 0
        printed = capsys.readouterr().out
        (root / "w" / "p.yaml").write_text(printed)
        os.chdir(root / "alt" / "x")
        assert main(["fit", "-c", "../../w/p.yaml", "--print_config"]) == 0
        pasted = capsys.readouterr().out
        (root / "w" / "k").rmdir()
        assert main(["fit", "-c", "../../w/p.yaml"]) == 2
        err = capsys.readouterr().err
    finally:
        os.chdir(before)
    for shown in (printed, pasted):
        config = yaml.safe_load(shown)
        assert Path(config["data"]["data_dir"]).is_absolute(), shown
        assert os.path.realpath(config["data"]["data_dir"]) == str(root.resolve() / "w" / "k")
        assert os.path.realpath(config["out"]) == str(root.resolve() / "w" / "runs" / "f1")
        for named in (config["out"], config["data"]["data_dir"]):
            assert "/./" not in named and "/../" not in named, shown
    assert "no such folder" in err, err
    assert "read beside the config file" not in err, err


def _linked_out(root: Path, depth: int, linked: bool, work_depth: int) -> tuple[Path, str]:
    """``root/alt/x...`` (``work_depth`` deep) holding nothing, ``root/alt/L`` a link
    (absolute or relative) to ``root/w/c/s...`` (``depth`` deep), and the ``--out`` typed from
    the first that goes through the link and up ``depth + 1`` folders: the kernel's
    ``root/w/runs/o``, never ``root/alt/runs/o`` (``L/..`` dropped by name)."""
    target = root.joinpath("w", "c", *["s"] * depth)
    target.mkdir(parents=True)
    work = root.joinpath("alt", *["x"] * work_depth)
    work.mkdir(parents=True)
    relative = Path("../w/c", *["s"] * depth)
    (root / "alt" / "L").symlink_to(target if linked else relative)
    return work, f"{'../' * work_depth}L/{'../' * (depth + 1)}runs/o"


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    depth=st.integers(0, 2),
    work_depth=st.integers(0, 1),
    linked=st.booleans(),
    command=st.sampled_from(["fit", "suite", "tune", "reproduce", "report", "profile", "predict"]),
)
def test_an_out_flag_with_dotdot_after_a_symlink_is_the_folder_the_kernel_writes(
    depth: int,
    work_depth: int,
    linked: bool,
    command: str,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every command's ``--out L/../runs/o`` (L a symlink) is taken as the kernel's path, as
    a config file's ``out`` is: the path a library makes absolute by name (os.path.abspath,
    tempfile.mkstemp) names the same folder (issue 56: at f9772df fit trained, then failed
    writing its checkpoint in the working folder's ``runs/o``, and every run of suite)."""
    from harness.cli import parse_command
    from harness.training.settings.fit_cli import FitCLI

    root = tmp_path_factory.mktemp("outs")
    work, out = _linked_out(root, depth, linked, work_depth)
    words = {
        "fit": ["--task", "trec", "--encoder", "bilstm", "--data-dir", str(DATA)],
        "suite": ["--tasks", "trec", "--encoders", "bilstm"],
        "tune": ["--study", "dropout", "--task", "trec", "--encoder", "bilstm"],
        "reproduce": [],
        "report": ["runs"],
        "profile": [],
        "predict": ["--ckpt", "a.ckpt", "--input", "i.txt"],
    }[command]
    out += ".csv" if command == "predict" else ""
    monkeypatch.chdir(work)
    if command == "fit":
        taken = FitCLI([*words, "--out", out]).config["out"]
    else:
        taken = parse_command(command, [*words, "--out", out]).get("out")  # type: ignore[attr-defined]
    made = root.resolve() / "w" / "runs" / ("o.csv" if command == "predict" else "o")
    assert os.path.realpath(os.path.abspath(taken)) == str(made), taken
    assert "/../" not in str(taken) and "/./" not in str(taken), taken


@pytest.mark.slow
@pytest.mark.parametrize("command", ["fit", "suite"])
def test_a_run_into_an_out_with_dotdot_after_a_symlink_writes_there(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fit`` and ``suite`` given ``--out L/../runs/o`` (L a symlink) run into the link's
    target's ``runs/o`` and record that folder (issue 56: at f9772df fit trained, then exit 2
    ``No such file or directory: .../w/runs/o/checkpoints/.last.ckpt....part``, the run folder
    lost; every suite run failed so)."""
    work, out = _linked_out(tmp_path, 1, False, 0)
    budget = ["--trainer.limit_val_batches", "1", "--trainer.limit_test_batches", "1"]
    budget += ["--model.hidden_dim", "8"]
    words = {
        "fit": [
            *("--task", "trec", "--encoder", "bilstm", "--data-dir", str(DATA)),
            *("--trainer.max_steps", "2", "--trainer.max_epochs", "1"),
            *("--data.max_length", "64"),
        ],
        "suite": [
            *("--tasks", "trec", "--encoders", "bilstm", "--data-dir", str(DATA)),
            *("--seeds", "1", "--max-steps", "2", "--max-length", "64"),
        ],
    }[command]
    monkeypatch.chdir(work)
    assert main([command, *words, *budget, "--out", out]) == 0
    made = tmp_path / "w" / "runs" / "o"
    assert not (tmp_path / "alt" / "runs").exists()
    run = made if command == "fit" else made / "runs" / "trec" / "bilstm" / "seed0"
    assert (run / "checkpoints" / "last.ckpt").is_file()
    assert command == "fit" or (made / "results-1-of-1.csv").is_file()
    recorded = yaml.safe_load((run / "fit_config.yaml").read_text())["out"]
    assert os.path.realpath(recorded) == str(run.resolve()), recorded
    assert "/../" not in recorded, recorded


# each command's path keys, a file's text setting them to VALUE (the data folder found)
WRITTEN_CASES = [
    ("suite", "tasks: trec\nencoders: bilstm\ndata_dir: DATA\nout: VALUE\n", ["out"]),
    ("fit", "data: {task: trec, data_dir: VALUE}\nmodel: {encoder: bilstm}\nout: VALUE\n", []),
    ("predict", "ckpt: VALUE\ninput: VALUE\nout: VALUE.csv\n", ["ckpt", "input"]),
    ("data stats", "task: trec\ndata_dir: VALUE\ncache_dir: VALUE\n", ["cache_dir"]),
]


@pytest.mark.parametrize("value", ["yes", "no", "on", "017", "0x1f", "1_000"])
@pytest.mark.parametrize(("command", "text", "keys"), WRITTEN_CASES)
def test_a_path_key_yaml_reads_as_a_boolean_or_number_is_the_name_as_written(
    command: str,
    text: str,
    keys: list[str],
    value: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``out: yes`` (YAML's true), ``out: 017`` (YAML's 15) name the folder ``yes``, ``017``
    beside the config file, as ``--out yes`` does, in every command (issue 56, f19d item 1):
    it was refused "expected a path", or named another folder (``15``)."""
    (tmp_path / "c").mkdir()
    config = tmp_path / "c" / "c.yaml"
    config.write_text(text.replace("DATA", str(DATA)).replace("VALUE", value))
    capsys.readouterr()
    code = main([*command.split(), "--config", str(config), "--print_config"])
    out, err = capsys.readouterr()
    assert "expected a path" not in err, err
    if code == 0:
        for key in keys or ["out", "data_dir"]:
            assert f"{key}: {tmp_path / 'c' / value}\n" in out, (key, out)
    else:  # a file not there: named by the path read, as written
        assert f"{tmp_path / 'c' / value}" in err, err


# a command's words naming ~/k (the data folder, linked in the home folder) and ~/o, and the
# printed keys that read them
HOME_CASES = [
    (["suite", "--tasks", "trec", "--encoders", "bilstm", "--data-dir=~/k", "--out=~/o"], []),
    (["fit", "--task", "trec", "--encoder", "bilstm", "--data.data_dir", "~/k", "--out=~/o"], []),
    (["suite", "--tasks", "trec", "--encoders", "bilstm"], ["data_dir: ~/k", "out: ~/o"]),
    (["fit", "--encoder", "bilstm"], ["data: {task: trec, data_dir: ~/k}", "out: ~/o"]),
    (["tune", "--study", "dropout", "--task", "trec", "--encoder", "bilstm"], ["data_dir: ~/k"]),
]


@pytest.mark.parametrize(("words", "lines"), HOME_CASES)
def test_a_path_starting_with_a_tilde_is_the_home_folder(
    words: list[str],
    lines: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--out=~/o`` and a config's ``out: ~/o`` (which no shell expands) are the home folder's
    ``o``, printed (and recorded) absolute, in every command, as the data reader reads vectors
    (issue 56, f19d item 2): they were a folder named ``~`` in the working folder."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "k").symlink_to(DATA)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "c.yaml"
    config.write_text("".join(f"{line}\n" for line in lines) or "{}\n")
    capsys.readouterr()
    code = main([*words, "--config", str(config), "--print_config"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"data_dir: {home / 'k'}\n" in out, out
    if "tune" not in words:
        assert f"out: {home / 'o'}\n" in out, out
    assert not (tmp_path / "~").exists()


@pytest.mark.parametrize(
    "words",
    [
        ["predict", "--ckpt", "~/no.ckpt", "--input=~/no.txt", "--out", "p.csv"],
        ["data", "stats", "--task", "trec", "--data-dir=~/no"],
        ["fit", "--task", "trec", "--encoder", "bilstm", "--data.data_dir", "~/no", "--out", "o"],
    ],
)
def test_a_missing_tilde_path_is_named_as_typed(
    words: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``~`` path not there is refused by the home folder's path, named as typed."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(words) == 2
    err = capsys.readouterr().err
    assert " ~/no" in err, err
    assert str(tmp_path / "no") not in err, err
    assert list(tmp_path.iterdir()) == [], "nothing made"
