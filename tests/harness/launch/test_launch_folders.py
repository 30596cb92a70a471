"""A command's launch folder (``OUT/jobs/launch-<pid>-<id>``, harness.launch.launch_folders):
a killed command's is removed by the next command on the same ``--out`` (outside check 6y,
item 3), and only when its command is provably gone (outside check 7y, items 2 and 3)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from harness import quiet
from harness.errors import InputError
from harness.launch import launch_folders
from harness.launch.job_run import JOB_RUN_ENV
from harness.launch.processes import launch_processes
from harness.outdir import NotOursError, out_folder


def _gone_pid() -> int:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return int(gone.stdout)


def _before_me() -> float:
    """A start time of this boot, before this process's: its pid's owner then is gone."""
    return (psutil.boot_time() + launch_folders.process_start_time(os.getpid())) / 2


def _launch_folder(jobs: Path, name: str, **owner: object) -> Path:
    """A launch folder with its jobs' files, its record this process's with ``owner`` changes."""
    record = {**launch_folders.owner_record(), **owner}
    folder = jobs / f"launch-{record['pid']}-{name}"
    (folder / "said").mkdir(parents=True)
    for file in ("t-1-of-2.run", "t-1-of-2.result.pkl", "t-2-of-2.run"):
        (folder / file).write_text("x")
    (folder / launch_folders.OWNER).write_text(json.dumps(record))
    return folder


def test_a_later_launch_removes_the_folders_of_commands_that_are_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill -9'd command's folder stayed forever (its .run and .result.pkl files, said/); the
    next launch removes it but for a job's traceback, and leaves a live command's folder."""
    monkeypatch.setattr(quiet, "_said_folder", [])
    jobs = tmp_path / "jobs"
    gone = _gone_pid()
    killed = _launch_folder(jobs, "a", pid=gone)
    failed = _launch_folder(jobs, "b", pid=gone)
    (failed / "t-2-of-2.err").write_text("Traceback ...")
    reused = _launch_folder(jobs, "c", started=_before_me())  # the pid is now another's
    live = _launch_folder(jobs, "d")
    mine = quiet.command_folder(jobs)
    assert not killed.exists() and not reused.exists()
    assert [path.name for path in failed.iterdir()] == ["t-2-of-2.err"]
    assert (live / "said").is_dir() and len(list(live.iterdir())) == 5
    assert mine.name.startswith(f"launch-{os.getpid()}-")
    assert json.loads((mine / launch_folders.OWNER).read_text())["pid"] == os.getpid()
    launch_folders.remove_launch_folder(mine)
    assert not mine.exists()


@pytest.mark.parametrize(
    "elsewhere",
    [
        {"pid_namespace": "pid:[1]"},  # a container on this machine
        {"host": "another-host"},
        {"boot_id": "another-boot"},
        {"pid_namespace": None},  # a system that did not tell
    ],
)
def test_a_folder_made_in_another_pid_namespace_or_host_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, elsewhere: dict[str, object]
) -> None:
    """Outside check 7y, item 2: a command in another pid namespace (``unshare --pid``; another
    container or machine sharing the --out) found no process of a live command's pid and
    removed its folder: that command's jobs crashed with tracebacks. A folder whose pid does
    not name a process here is kept, as is one without a record (being made)."""
    monkeypatch.setattr(quiet, "_said_folder", [])
    jobs = tmp_path / "jobs"
    live = _launch_folder(jobs, "a", pid=_gone_pid(), **elsewhere)
    unrecorded = _launch_folder(jobs, "b", pid=_gone_pid())
    (unrecorded / launch_folders.OWNER).unlink()
    mine = quiet.command_folder(jobs)
    assert len(list(live.iterdir())) == 5 and len(list(unrecorded.iterdir())) == 4
    launch_folders.remove_launch_folder(mine)


def test_a_command_that_launches_nothing_removes_the_folders_of_commands_gone(
    tmp_path: Path,
) -> None:
    """Outside check 7y, item 3: the folders were removed only at a process launch, so a kill
    -9'd command's stayed when the next command on that --out launched nothing (a finished
    study's "no worker to launch"). A command removes them as it opens its --out."""
    out = tmp_path / "out"
    killed = _launch_folder(out / "jobs", "a", pid=_gone_pid())
    live = _launch_folder(out / "jobs", "b")
    (out / ".sanbench").write_text("made by sanbench tune: sanbench writes into this folder\n")
    with out_folder("tune", out):
        pass
    assert not killed.exists() and live.is_dir()


def test_a_refused_command_removes_nothing(tmp_path: Path) -> None:
    """A command refused for its --out (another command's folder) changes nothing there."""
    out = tmp_path / "out"
    killed = _launch_folder(out / "jobs", "a", pid=_gone_pid())
    (out / ".sanbench").write_text("made by sanbench tune: sanbench writes into this folder\n")
    with pytest.raises(NotOursError, match="made by sanbench tune"), out_folder("suite", out):
        pass
    assert killed.is_dir()


@pytest.mark.parametrize("command", ["profile", "tune"])
def test_a_command_refused_by_its_own_checks_removes_nothing(tmp_path: Path, command: str) -> None:
    """Issue 54: the folders were removed as a command opened its --out, before its lock and
    its own checks: ``profile --resume`` refused "holds another sweep; nothing was written"
    having removed them. Now they go once the command is accepted."""
    out = tmp_path / "out"
    killed = _launch_folder(out / "jobs", "a", pid=_gone_pid())
    (out / ".sanbench").write_text(f"made by sanbench {command}: sanbench writes into it\n")
    with pytest.raises(InputError, match="another sweep"), out_folder(command, out):
        assert killed.is_dir()  # the lock is held, the command's checks not yet made
        raise InputError("out holds another sweep; nothing was written")
    assert killed.is_dir()


@pytest.fixture
def live_pid() -> Iterator[int]:
    """A live process of this host, boot and pid namespace, not this one."""
    sleeper = subprocess.Popen(["sleep", "900"])
    yield sleeper.pid
    sleeper.kill()
    sleeper.wait()


@pytest.mark.parametrize(
    "started",
    [1e300, -1, 0, "future", "before-boot"],
    ids=["big", "negative", "zero", "future", "before-boot"],
)
def test_a_live_pids_folder_whose_start_cannot_be_its_processes_is_kept(
    tmp_path: Path, live_pid: int, started: object
) -> None:
    """Issue 54: beside a live pid, a record's start time 1e300, -1 or 0 called its folder
    dead (not that process's start: pid reuse) and a command removed it. A start time no
    process of this boot can have proves nothing; nor one after its pid's live process
    started (its pid was not free then). Only a reuse shown (the live one started later)
    is."""
    if started == "future":
        started = time.time() + 3600
    elif started == "before-boot":
        started = psutil.boot_time() - 3600
    live_start = launch_folders.process_start_time(live_pid)
    assert live_start is not None
    kept = _launch_folder(tmp_path / "jobs", "kept", pid=live_pid, started=started)
    earlier = _launch_folder(tmp_path / "jobs", "earlier", pid=live_pid, started=live_start + 60)
    reused = _launch_folder(tmp_path / "jobs", "reused", pid=live_pid, started=_before_me())
    launch_folders.remove_dead_launch_folders(tmp_path / "jobs")
    assert (kept / "t-1-of-2.run").is_file() and (earlier / "t-1-of-2.run").is_file()
    assert not reused.exists()


def remove_my_folder() -> str:
    """A job whose launch folder is removed under it (by hand, or by another command)."""
    shutil.rmtree(Path(os.environ[JOB_RUN_ENV]).parent)
    return "done"


def fail_without_folder() -> None:
    remove_my_folder()
    raise ValueError("broken")


def test_a_job_whose_folder_vanished_says_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Outside check 7y, item 2: a job whose .run, .err and .result.pkl files could not be
    written (its folder removed) printed tracebacks; now one sanbench line, and its command
    reports it dead without a result."""
    monkeypatch.setattr(quiet, "_said_folder", [])
    capfd.readouterr()
    outcomes = launch_processes([remove_my_folder, fail_without_folder], tmp_path / "jobs", "t")
    no_result = "process ended with exit code 1, no result"
    assert [outcome.error for outcome in outcomes] == [no_result] * 2
    err = capfd.readouterr().err
    assert "Traceback" not in err
    lines = sorted(err.splitlines())
    assert len(lines) == 2 and all(line.startswith("sanbench: t-") for line in lines), err
    assert "its outcome could not be written (No such file or directory" in lines[0]


@pytest.mark.parametrize(
    "owner_text",
    [
        '{"pid": 1e999, "started": 1.0}',  # an internal error (OverflowError) until 2026-12-01
        '{"pid": true, "started": 1.0}',
        '{"pid": "12", "started": 1.0}',
        '{"pid": -4, "started": 1.0}',
        "[1, 2]",
        "[" * 100_000 + "]" * 100_000,  # RecursionError
        "LIVE_PID_STARTED 1e999",  # this live process, a start time that reads as infinity
        "LIVE_PID_STARTED NaN",
    ],
    ids=["pid-inf", "pid-bool", "pid-text", "pid-negative", "a-list", "deep", "inf", "nan"],
)
def test_a_folder_whose_record_does_not_read_as_sanbench_writes_it_is_kept(
    tmp_path: Path, owner_text: str
) -> None:
    """Outside check 9y item 2: a launch folder whose ``owner.json`` read ``"pid": 1e999``
    stopped every command opening that ``--out`` with "internal error: OverflowError", and
    ``"started": 1e999`` beside a live pid would have called a live command's folder dead. A
    record that does not read as sanbench writes it proves nothing: the folder is kept."""
    folder = _launch_folder(tmp_path / "jobs", "x")
    if owner_text.startswith("LIVE_PID_STARTED"):
        record = {**launch_folders.owner_record(), "started": owner_text.split()[1]}
        owner_text = json.dumps(record).replace(f'"{owner_text.split()[1]}"', owner_text.split()[1])
    (folder / launch_folders.OWNER).write_text(owner_text)
    launch_folders.remove_dead_launch_folders(tmp_path / "jobs")
    assert (folder / "t-1-of-2.run").is_file()
