"""removed_if_left_empty: a failed command leaves no empty --out folder, and nothing else goes;
one_writer: one process writes an --out folder, a second one is refused naming the holder;
out_folder: sanbench writes only into a folder it made (its marker says so), out_file_problems:
over a file it made, and only with --overwrite."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.outdir import (
    LOCK,
    MARKER,
    FolderBusyError,
    NotOursError,
    check_out_folder,
    holds_no_file,
    made_by,
    made_by_sanbench,
    made_file,
    mark,
    one_writer,
    out_file_problems,
    out_folder,
    record_file,
    removed_if_left_empty,
)
from tests.harness.problem_lines import files_refusal


def test_a_folder_created_and_left_empty_by_a_failure_is_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(ValueError), removed_if_left_empty(out):
        (out / "runs" / "trec").mkdir(parents=True)
        raise ValueError("bad batch size")
    assert not out.exists()


def test_a_folder_holding_a_file_is_kept_for_resuming(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt), removed_if_left_empty(out):
        out.mkdir()
        (out / "results.csv").write_text("a\n")
        raise KeyboardInterrupt
    assert (out / "results.csv").exists()


def test_a_folder_that_existed_before_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(ValueError), removed_if_left_empty(out):
        raise ValueError
    assert out.is_dir()


def test_a_command_that_returns_without_writing_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with removed_if_left_empty(out):
        out.mkdir()
    assert not out.exists()
    with removed_if_left_empty(None):
        pass


HOLDER = """
import sys
from harness.outdir import one_writer, LOCK
with one_writer(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else LOCK):
    print("held", flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def held_by_another_process(folder: Path, *lock_name: str) -> Iterator[int]:
    """A second real process holding ``folder``'s writer lock; yields its PID."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder), *lock_name],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=Path(__file__).parents[2],
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        holder.communicate(input="", timeout=60)


@pytest.mark.slow  # a second process
def test_a_second_writer_is_refused_with_the_holders_pid_then_admitted(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    with held_by_another_process(folder) as pid:
        with pytest.raises(FolderBusyError, match=f"PID {pid}\\)") as raised, one_writer(folder):
            pytest.fail("two writers")
        assert isinstance(raised.value, InputError)
    with one_writer(folder):  # the holder ended: the lock is free, its PID file gone
        assert (folder / f"{LOCK}.pid").read_text().strip() == str(os.getpid())
    assert holds_no_file(folder)


@pytest.mark.slow  # a second process
@pytest.mark.parametrize("command", ["fit", "profile", "suite", "report"])
def test_fit_profile_suite_and_report_exit_2_naming_the_holder(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, command: str
) -> None:
    folder = tmp_path / "out"
    data = ["--data-dir", str(trec_dir), "--embeddings", str(trec_dir / "glove.txt")]
    argv, lock = {
        "fit": (["fit", "--task", "trec", "--encoder", "multi_cnn", *data], LOCK),
        "profile": (["profile", "--encoders", "multi_cnn", "--preset", "quick"], LOCK),
        "suite": (["suite", "--tasks", "trec", "--encoders", "multi_cnn", *data],
                  ".sanbench-1-of-1.lock"),
        # outside check A item 6: a second report into one --out deleted the first's pages
        "report": (["report", str(PROFILE_RUN)], LOCK),
    }[command]  # fmt: skip
    with held_by_another_process(folder, lock) as pid:
        assert main([*argv, "--out", str(folder)]) == 2
    error = capsys.readouterr().err
    assert f"is being written by another sanbench process (PID {pid})" in error
    assert "Traceback" not in error
    assert sorted(p.name for p in folder.iterdir()) == [lock]  # nothing written


# --- sanbench writes only into a folder it made (issue 54.6) ---------------------------------

ROOT = Path(__file__).resolve().parents[2]
PROFILE_RUN = ROOT / "tests" / "reports" / "fixtures" / "profile-cpu-fp32"
NOT_OURS = "which sanbench did not make"


def sanbench(*argv: str) -> subprocess.CompletedProcess:
    """The command as ``sanbench`` runs it (``harness.cli.main``), in this process, with what it
    printed: a refusal comes before any work, so a fresh interpreter would only add torch's
    imports (about 5 s a case)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())


def refusal(done: subprocess.CompletedProcess) -> str:
    """The one line of a command refused as bad input (exit status 2; cli's --debug hint
    aside)."""
    lines = [line for line in done.stderr.splitlines() if not line.startswith("(sanbench --debug")]
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for a folder)."""
    return {
        str(path.relative_to(folder)): None if path.is_dir() else path.read_bytes()
        for path in folder.rglob("*")
    }


def folder_commands(trec_dir: Path) -> dict[str, list[str]]:
    """A valid command line (without --out) of each command whose --out is a folder."""
    data = ["--data-dir", str(trec_dir), "--embeddings", str(trec_dir / "glove.txt")]
    one_step = ["--max-steps", "1", "--seeds", "1"]
    return {
        "profile": ["profile", "--encoders", "multi_cnn", "--lengths", "8", "--repeats", "3",
                    "--batch-size", "2", "--dim", "8", "--no-report", "--no-progress"],
        "suite": ["suite", "--tasks", "trec", "--encoders", "multi_cnn", *data, *one_step],
        "reproduce": ["reproduce", "--tasks", "trec", "--encoders", "multi_cnn", *data],
        "tune": ["tune", "--study", "block-length-memory", "--lengths", "8", "--batch-size",
                 "2", "--dim", "8", "--trials", "1"],
        "report": ["report", str(PROFILE_RUN)],
    }  # fmt: skip


@pytest.mark.parametrize("command", ["profile", "suite", "reproduce", "tune", "report"])
def test_a_folder_of_the_users_is_refused_in_one_line_and_left_as_it_was(
    trec_dir: Path, tmp_path: Path, command: str
) -> None:
    """``--out`` holding a file sanbench did not make: exit 2, one line, nothing added or
    changed (on 023e32f profile, suite, tune and report wrote beside it and exited 0)."""
    folder = tmp_path / "mine"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("my notes\n")
    (folder / "sub" / "index.html").write_text("<p>mine</p>\n")
    before = snapshot(folder)
    line = refusal(sanbench(*folder_commands(trec_dir)[command], "--out", str(folder)))
    assert line == (
        f"sanbench {command}: --out {folder} holds notes.txt, sub/, {NOT_OURS}; nothing "
        "was written. Give a new or empty folder (sanbench writes only into folders it made)"
    )
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", ["profile", "suite", "reproduce", "tune", "report"])
def test_an_out_folder_that_is_a_file_is_called_a_file(
    trec_dir: Path, tmp_path: Path, command: str
) -> None:
    """A problem of the filesystem, as a folder of the user's or a loop: its line and no pointer
    to the command's help, which only the words' problems get (outside check 5x item 8: on
    6d8c57c the pointer, for this one --out problem alone)."""
    out = tmp_path / "results"
    out.write_text("mine\n")
    (line,) = files_refusal(sanbench(*folder_commands(trec_dir)[command], "--out", str(out)))
    assert line == f"sanbench {command}: --out {out} is a file, not a folder; give a folder " \
        "for the results"  # fmt: skip
    assert out.read_text() == "mine\n" and sorted(tmp_path.iterdir()) == [out]


def test_a_new_empty_or_marked_folder_is_sanbenchs_a_folder_of_the_users_is_not(
    tmp_path: Path,
) -> None:
    check_out_folder(tmp_path / "new", "suite")
    check_out_folder(tmp_path, "suite")  # empty
    (tmp_path / LOCK).write_text("")  # a lock file is no result
    check_out_folder(tmp_path, "suite")
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(NotOursError, match=f"holds notes.txt, {NOT_OURS}"):
        check_out_folder(tmp_path, "suite")
    (tmp_path / MARKER).write_text("")
    check_out_folder(tmp_path, "suite")


# each command's --out folder as it leaves it: its own records (fit's has no .sanbench marker)
FOLDER_RECORDS = {
    "fit": {".sanbench-run": "", "fit_config.yaml": "seed_everything: 0\n",
            "manifest.json": '{"kind": "fit", "command": "sanbench fit"}'},
    "suite": {"manifest.json": '{"kind": "suite", "command": "sanbench suite"}',
              "results-1-of-1.csv": "task,encoder\n"},
    "reproduce": {"manifest.json": '{"kind": "reproduce", "command": "sanbench reproduce"}',
                  "results-1-of-1.csv": "task\n"},
    "profile": {"manifest.json": '{"kind": "profile", "command": "sanbench profile"}',
                "profile.csv": "encoder,seq_len\n"},
    "tune": {"manifest.json": '{"kind": "study", "command": "sanbench tune"}',
             "best_config.yaml": "model: {}\n"},
    "report": {".sanbench-site.json": '{"pages": []}', "index.html": "<p>site</p>\n"},
}  # fmt: skip


def made_folder(folder: Path, command: str, marked: bool = True) -> Path:
    """``folder`` as ``command`` leaves it (without the marker: as made before it existed)."""
    folder.mkdir(parents=True)
    for name, text in FOLDER_RECORDS[command].items():
        (folder / name).write_text(text)
    if marked and command != "fit":
        mark(folder, command)
    return folder


@pytest.mark.parametrize("marked", [True, False], ids=["marked", "records only"])
@pytest.mark.parametrize("command", FOLDER_RECORDS)
def test_the_command_that_made_a_folder_is_read_from_its_records(
    tmp_path: Path, command: str, marked: bool
) -> None:
    expected = None if command == "report" and not marked else command  # a ledger says no more
    assert made_by(made_folder(tmp_path / "out", command, marked)) == expected
    assert made_by(tmp_path / "out" / "new") is None


@pytest.mark.parametrize("held", ["hello\n", "model: [\n", "- model\n"])
def test_a_users_file_named_fit_config_yaml_is_no_fits(tmp_path: Path, held: str) -> None:
    """Outside check A item 8: any file of that name made the folder fit's."""
    (tmp_path / "fit_config.yaml").write_text(held)
    assert made_by(tmp_path) is None
    with pytest.raises(NotOursError, match=r"holds fit_config\.yaml, which sanbench did not make"):
        check_out_folder(tmp_path, "suite")


@pytest.mark.parametrize("kind", ["suite", "profile", "study", "fit"])
@pytest.mark.parametrize("command", ["suite", "profile", "tune", "reproduce", "report"])
def test_a_users_manifest_naming_a_kind_makes_no_folder_sanbenchs(
    tmp_path: Path, kind: str, command: str
) -> None:
    """Outside check A item 10: ``suite --out mf`` adopted a folder holding the user's
    ``manifest.json`` ``{"kind": "suite"}`` and replaced it (exit 0); another command called it
    made by sanbench suite."""
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": kind}))
    assert not made_by_sanbench(tmp_path) and made_by(tmp_path) is None
    with pytest.raises(NotOursError, match=f"holds manifest.json, {NOT_OURS}"):
        check_out_folder(tmp_path, command)
    (tmp_path / "manifest.json").write_text(json.dumps({"kind": "suite", "threads": {}}))
    assert made_by(tmp_path) == "suite"  # a launch's plan, recorded before the command


@pytest.mark.parametrize("maker", FOLDER_RECORDS)
def test_a_folder_another_command_made_is_refused_by_every_command_in_one_line(
    trec_dir: Path, tmp_path: Path, maker: str
) -> None:
    """#54: ``suite --out FIT_FOLDER`` trained its first cell, then failed ("kind is 'fit'");
    each command refuses another's folder before any work, naming the command that made it."""
    folder = made_folder(tmp_path / maker, maker)
    before = snapshot(folder)
    commands = folder_commands(trec_dir)
    data = ["--data-dir", str(trec_dir), "--embeddings", str(trec_dir / "glove.txt")]
    commands["fit"] = ["fit", "--task", "trec", "--encoder", "multi_cnn", *data]
    for command in (c for c in commands if c != maker):
        line = refusal(sanbench(*commands[command], "--out", str(folder)))
        assert line == (
            f"sanbench {command}: --out {folder} was made by sanbench {maker}, not {command}; "
            f"nothing was written. Give a new or empty folder, or one sanbench {command} made"
        )
        assert snapshot(folder) == before, command


@pytest.mark.parametrize(
    ("name", "text", "ours"),
    [
        # made before the marker existed
        ("manifest.json", '{"kind": "profile", "command": "sanbench profile"}', True),
        ("manifest.json", '{"kind": "profile"}', False),  # a user's (outside check A item 10)
        ("manifest.json", '{"name": "my web app"}', False),
        ("profile.csv", "encoder,options,seq_len,mode\n", True),
        ("results-1-of-2.csv", "task,encoder,replicate\n", True),
        ("profile.csv", "a,b\n", False),  # a file of the user's of a record's name (H1)
        ("results-1-of-1.csv", "x\n", False),
        (".sanbench-site.json", '{"pages": []}', True),  # a report's ledger
        (".sanbench-run", "", True),  # a fit's marker
        (".pred.csv.sanbench.json", "{}", False),  # a file's record, not the folder's
    ],
)
def test_folders_made_before_the_marker_are_known_by_sanbenchs_records(
    tmp_path: Path, name: str, text: str, ours: bool
) -> None:
    (tmp_path / name).write_text(text)
    assert made_by_sanbench(tmp_path) == ours


def test_a_suite_killed_before_its_first_row_is_resumed_a_folder_among_them_is_named(
    tmp_path: Path,
) -> None:
    """Killed before it marked its folder: what it holds is in fit's run folders (their own
    marker), so the rerun is admitted; a file of the user's beside them is not."""
    run = tmp_path / "runs" / "trec" / "multi_cnn" / "seed-0"
    run.mkdir(parents=True)
    (run / ".sanbench-run").write_text("")
    (run / "fit_config.yaml").write_text("model: {}\n")
    (tmp_path / ".sanbench-1-of-1.lock").write_text("")
    (tmp_path / "empty").mkdir()
    check_out_folder(tmp_path, "suite")
    (tmp_path / "runs" / "trec" / "notes.txt").write_text("mine")
    with pytest.raises(NotOursError, match=f"holds runs/, {NOT_OURS}"):
        check_out_folder(tmp_path, "suite")


def test_a_failed_command_leaves_a_given_empty_folder_empty_and_removes_a_new_one(
    tmp_path: Path,
) -> None:
    given, new = tmp_path / "given", tmp_path / "new"
    given.mkdir()
    for out in (given, new):
        with pytest.raises(ValueError), out_folder("report", out):
            assert (out / MARKER).is_file()  # marked before anything is written
            raise ValueError("no run could be read")
    assert list(given.iterdir()) == [] and not new.exists()


def test_a_folder_a_command_made_after_its_checks_is_marked_when_it_ends(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    with out_folder("suite", out):
        assert not out.exists()  # suite makes it itself (--aggregate-only needs one)
        (out / "runs").mkdir(parents=True)
        (out / "runs" / "row.csv").write_text("a\n")
    assert (out / MARKER).is_file()
    with out_folder("suite", out):  # the resume
        pass


def test_a_file_sanbench_wrote_is_known_until_it_is_changed(tmp_path: Path) -> None:
    out = tmp_path / "pred.csv"
    out.write_text("line,label\n1,a\n")
    assert not made_file(out)
    record_file(out, "predict")
    assert made_file(out)
    assert out_file_problems(out, ".csv", overwrite=True) == []
    (problem,) = out_file_problems(out, ".csv", overwrite=False)
    assert "add --overwrite to replace it" in problem
    out.write_text("line,label\n1,b\n")  # edited by hand: the user's now
    assert not made_file(out)
    (problem,) = out_file_problems(out, ".csv", overwrite=True)
    assert "sanbench did not make it (or it was changed since)" in problem


def test_run_profile_from_python_refuses_a_folder_of_the_users(tmp_path: Path) -> None:
    """Without the command line's check: the sweep's own folder setup refuses it."""
    from harness.profiling import ProfileOptions, run_profile

    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(NotOursError, match=f"holds notes.txt, {NOT_OURS}"):
        run_profile(ProfileOptions(encoders="multi_cnn", lengths="8", out=tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


# --- a lock-named entry is sanbench's only when it holds what sanbench writes there (54.6) ----

PROFILE_ARGV = folder_commands(Path("unused"))["profile"]


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file of the user's outside the --out folder."""
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir()
    path.write_text("PRECIOUS victim\n")
    return path


def plant(entry: Path, impostor: str, victim: Path) -> None:
    """A user's file named like sanbench's lock, or a symlink of that name to ``victim``."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    if impostor == "notes":
        entry.write_text("PRECIOUS user notes\n")
    else:
        entry.symlink_to(victim)


@pytest.mark.parametrize("name", [LOCK, f"{LOCK}.pid"])
@pytest.mark.parametrize("impostor", ["notes", "symlink"])
def test_profile_refuses_a_folder_holding_a_lock_named_entry_of_the_users(
    tmp_path: Path, victim: Path, capsys: pytest.CaptureFixture, name: str, impostor: str
) -> None:
    """On bae682d ``profile --out u1`` marked the folder, wrote its PID over the user's notes
    (or through the symlink into victim.txt, outside the folder) and exited 0."""
    folder = tmp_path / "u1"
    plant(folder / name, impostor, victim)
    assert main([*PROFILE_ARGV, "--out", str(folder)]) == 2
    lines = [
        line
        for line in capsys.readouterr().err.splitlines()
        if not line.startswith("(sanbench --debug")
    ]
    assert lines == [
        f"sanbench profile: --out {folder} holds {name}, {NOT_OURS}; nothing was written. "
        "Give a new or empty folder (sanbench writes only into folders it made)"
    ]
    assert [p.name for p in folder.iterdir()] == [name]
    assert (folder / name).is_symlink() == (impostor == "symlink")
    assert victim.read_text() == "PRECIOUS victim\n"
    if impostor == "notes":
        assert (folder / name).read_text() == "PRECIOUS user notes\n"


@pytest.mark.parametrize("name", [LOCK, f"{LOCK}.pid"])
@pytest.mark.parametrize("impostor", ["notes", "symlink"])
def test_the_writer_lock_never_writes_over_or_through_an_entry_it_did_not_make(
    tmp_path: Path, victim: Path, name: str, impostor: str
) -> None:
    """Even in a folder of sanbench's (marked), the lock refuses an impostor as bad input."""
    folder = tmp_path / "out"
    plant(folder / name, impostor, victim)
    (folder / MARKER).write_text("")
    with pytest.raises(NotOursError, match="sanbench did not make"), one_writer(folder):
        pytest.fail("the lock was taken")
    assert (folder / name).is_symlink() == (impostor == "symlink")
    assert victim.read_text() == "PRECIOUS victim\n"
    if impostor == "notes":
        assert (folder / name).read_text() == "PRECIOUS user notes\n"


def test_a_pid_file_left_by_a_killed_writer_is_still_sanbenchs(tmp_path: Path) -> None:
    (tmp_path / LOCK).write_text("")  # filelock leaves its (empty) file
    (tmp_path / f"{LOCK}.pid").write_text("4242\n")  # its holder was killed (SIGKILL)
    check_out_folder(tmp_path, "profile")
    assert holds_no_file(tmp_path)
    with one_writer(tmp_path):
        assert (tmp_path / f"{LOCK}.pid").read_text() == f"{os.getpid()}\n"
    assert not (tmp_path / f"{LOCK}.pid").exists()


UNMAKEABLE_OUT_COMMANDS = {  # every command with a folder --out but fit (test_run_folder.py)
    "suite": ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--data-dir", "{data}"],
    "tune": ["tune", "--study", "block-length-memory", "--lengths", "8", "--batch-size", "2"],
    "reproduce": [
        "reproduce",
        "--tasks",
        "trec",
        "--encoders",
        "multi_cnn",
        "--data-dir",
        "{data}",
    ],
    "profile": ["profile", "--preset", "quick"],
    "report": ["report", "."],
}


def _unmakeable_out_words(command: str, data: Path) -> list[str]:
    """``command``'s words of :data:`UNMAKEABLE_OUT_COMMANDS`, its data folder ``data`` (one
    of TREC's files: a folder without them is named beside the --out)."""
    return [word.format(data=data) for word in UNMAKEABLE_OUT_COMMANDS[command]]


@pytest.mark.parametrize("command", UNMAKEABLE_OUT_COMMANDS)
def test_an_out_folder_that_cannot_be_made_is_one_line_before_any_work(
    command: str, tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 (H11.1): a raw ``[Errno ...]``, some after the work was done."""
    os.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    for out in ("/proc/nope/x", "notes.txt/x"):
        assert main([*_unmakeable_out_words(command, trec_dir), "--out", out]) == 2
        (line, *rest) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"sanbench {command}: --out {out}: cannot be made"), line
        assert [r for r in rest if "--debug" not in r] == []
    assert os.listdir(tmp_path) == ["notes.txt"]


@pytest.mark.parametrize("command", UNMAKEABLE_OUT_COMMANDS)
def test_an_out_through_a_symlink_to_nothing_is_one_line_before_any_work(
    command: str, tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check of #54 (brief f54h item 2): ``ln -s realdir3 F15`` then ``--out F15``
    printed ``[Errno 17] File exists: 'F15'`` (fit, profile --predict-only: after the work)."""
    os.chdir(tmp_path)
    os.symlink("realdir3", "F15")
    for out, line in (
        ("F15", "--out F15: a symlink to realdir3, which does not exist"),
        (
            "F15/x",
            f"--out F15/x: {tmp_path / 'F15'} is a symlink to realdir3, which does not exist",
        ),
    ):
        assert main([*_unmakeable_out_words(command, trec_dir), "--out", out]) == 2
        (said, *rest) = capsys.readouterr().err.splitlines()
        assert said.startswith(f"sanbench {command}: {line}; nothing was created"), said
        assert [r for r in rest if "--debug" not in r] == []
    assert os.listdir(tmp_path) == ["F15"] and os.readlink("F15") == "realdir3"


@pytest.mark.parametrize(
    "argv",
    [
        ["profile", "--repeats", "1"],
        ["profile", "--launcher", "slurm", "--preset", "quick"],
        ["tune", "--study", "block-length-memory", "--lengths", "8", "--trials", "0"],
    ],
    ids=["profile repeats", "profile slurm", "tune trials"],
)
def test_a_refused_command_leaves_no_folder_above_its_out(tmp_path: Path, argv: list[str]) -> None:
    """Exit 2, nothing created: the folders above a new ``--out`` were left (issue 57 breaker:
    ``profile --launcher slurm --out runs/profile-a100`` left an empty ``runs/``)."""
    out = tmp_path / "deep" / "er" / "x"
    assert main([*argv, "--out", str(out)]) == 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "refused",
    [["--max-epochs", "0"], ["--trainer.max_steps", "0"], ["--trials", "0"], ["--storage", "x"]],
)
def test_a_refused_tune_never_makes_its_out(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refused: list[str]
) -> None:
    """Outside check of #54 (brief f54h item 3): ``tune ... --max-epochs 0 --out o`` made ``o``
    (marked), then took it away when the budget was refused."""
    made: list[Path] = []
    mkdir = os.mkdir

    def recorded(path: str | Path, *args: object, **kwargs: object) -> None:
        made.append(Path(path).absolute())
        mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", recorded)
    out = tmp_path / "o"
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"]
    assert main([*argv, "--data-dir", str(trec_dir), *refused, "--out", str(out)]) == 2
    assert out not in made and not out.exists()


# --- nothing adopted, nothing left by a refusal (issue 54.6, brief H1) -------------------------


@pytest.mark.parametrize(
    ("command", "name", "text", "extra"),
    [
        ("suite", "results-1-of-1.csv", "x\n", []),
        ("profile", "profile.csv", "a,b\n", []),
        ("profile", "profile.csv", "a,b\n", ["--resume"]),
    ],
    ids=["suite", "profile", "profile --resume"],
)
def test_a_users_file_named_like_sanbenchs_rows_is_not_adopted(
    trec_dir: Path, tmp_path: Path, command: str, name: str, text: str, extra: list[str]
) -> None:
    """On 991e3db ``suite`` wrote its rows over the user's ``results-1-of-1.csv`` (``x,task,...``)
    and exited 0; ``profile`` marked and locked a folder holding the user's ``profile.csv``,
    refused it as a sweep, and its ``--resume`` then wrote over it: a file's name proves nothing,
    its header does."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / name).write_text(text)
    before = snapshot(folder)
    line = refusal(sanbench(*folder_commands(trec_dir)[command], *extra, "--out", str(folder)))
    assert line == (
        f"sanbench {command}: --out {folder} holds {name}, {NOT_OURS}; nothing was written. "
        "Give a new or empty folder (sanbench writes only into folders it made)"
    )
    assert snapshot(folder) == before


def late_refusals(trec_dir: Path, tmp_path: Path) -> dict[str, tuple[list[str], str | None]]:
    """Each command's line refused after its ``--out`` was checked (and, before H1, marked and
    locked), with the command whose folder ``--out`` is (None: an empty folder)."""
    data = ["--data-dir", str(trec_dir)]
    no_data = tmp_path / "no-data"
    no_data.mkdir()
    text = str(trec_dir / "TREC.test.all")
    return {
        "profile": (folder_commands(trec_dir)["profile"], "profile"),  # a sweep: no --resume
        "suite": (["suite", "--tasks", "trec", "--encoders", "multi_cnn", *data, "--max-steps",
                   "0"], "suite"),
        "reproduce": (["reproduce", "--tasks", "trec", "--encoders", "multi_cnn",
                       "--data-dir", str(no_data)], "reproduce"),
        "tune": (["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn",
                  *data, "--trials", "1", "--trainer.max_epochs", "0"], "tune"),
        "report": (["report", str(tmp_path / "absent")], "report"),
        "fit": (["fit", "--task", "trec", "--encoder", "multi_cnn", *data,
                 "--trainer.limit_train_batches", "0.0001"], None),
        "predict": (["predict", "--ckpt", text, "--input", text], None),
        "encode": (["encode", "--ckpt", text, "--input", text], None),
    }  # fmt: skip


@pytest.mark.parametrize("given", ["own", "empty"])
@pytest.mark.parametrize(
    "command", ["profile", "suite", "reproduce", "tune", "report", "fit", "predict", "encode"]
)
def test_a_command_refused_after_its_out_was_checked_leaves_the_folder_as_it_was(
    trec_dir: Path, tmp_path: Path, command: str, given: str
) -> None:
    """On 991e3db a refusal in the command's own checks kept the marker and ``.sanbench.lock``
    written before them (``profile --out SWEEP`` without ``--resume``; ``suite``, ``tune``,
    ``report`` on their own folders made before the marker): exit 2, the folder byte-identical,
    its marker absent if it was."""
    argv, maker = late_refusals(trec_dir, tmp_path)[command]
    folder = tmp_path / "out"
    if given == "own" and maker is not None:
        made_folder(folder, maker, marked=False)
    else:
        folder.mkdir()
        argv += ["--resume"] if command == "profile" else []  # nothing to resume
    out = folder / ("p.csv" if command == "predict" else "e.npy") if maker is None else folder
    before = snapshot(folder)
    done = sanbench(*argv, "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert snapshot(folder) == before


@pytest.mark.parametrize("command", [*UNMAKEABLE_OUT_COMMANDS, "fit"])
def test_an_out_through_a_symlink_chain_or_loop_names_the_link_that_leads_nowhere(
    command: str, tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 54 leftovers (item 5): ``A -> B -> C`` (no C) said ``a symlink to B, which does
    not exist`` (B does), and a loop ``X -> Y -> X`` ``a symlink to Y, which does not exist``."""
    os.chdir(tmp_path)
    for link, target in (("A", "B"), ("B", "C"), ("X", "Y"), ("Y", "X")):
        os.symlink(target, link)
    chain = "a symlink to B, which is a symlink to C, which does not exist"
    loop = "a symlink to Y, which is a symlink to X: a loop of symlinks"
    fit = ["fit", "--encoder", "multi_cnn", "--data.task", "trec", "--data.data_dir", "{data}"]
    words = UNMAKEABLE_OUT_COMMANDS.get(command, fit)
    words = [word.format(data=trec_dir) for word in words]
    for out, line in (
        ("A", f"--out A: {chain}"),
        ("A/x", f"--out A/x: {tmp_path / 'A'} is {chain}"),
        ("X", f"--out X: {loop}"),
    ):
        assert main([*words, "--out", out]) == 2
        (said, *rest) = capsys.readouterr().err.splitlines()
        assert said.startswith(f"sanbench {command}: {line}; nothing was created"), said
        assert [r for r in rest if "--debug" not in r] == []
    assert sorted(os.listdir(tmp_path)) == ["A", "B", "X", "Y"]
