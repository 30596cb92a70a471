"""A killed command's launch folder (``OUT/jobs/launch-<pid>-<id>``, harness.quiet) is removed
by the next command's launch on the same ``--out`` (outside check 6y, item 3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import quiet


def _launch_folder(jobs: Path, pid: int, name: str) -> Path:
    folder = jobs / f"launch-{pid}-{name}"
    (folder / "said").mkdir(parents=True)
    for file in ("t-1-of-2.run", "t-1-of-2.result.pkl", "t-2-of-2.run"):
        (folder / file).write_text("x")
    return folder


def test_a_later_launch_removes_the_folders_of_commands_that_are_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill -9'd command's folder stayed forever (its .run and .result.pkl files, said/); the
    next launch removes it but for a job's traceback, and leaves a live command's folder."""
    monkeypatch.setattr(quiet, "_said_folder", [])
    jobs = tmp_path / "jobs"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    killed = _launch_folder(jobs, int(gone.stdout), "a")
    failed = _launch_folder(jobs, int(gone.stdout), "b")
    (failed / "t-2-of-2.err").write_text("Traceback ...")
    reused = _launch_folder(jobs, os.getpid(), "c")  # the pid is now another process's
    os.utime(reused, (0, 0))
    live = _launch_folder(jobs, os.getpid(), "d")
    mine = quiet.command_folder(jobs)
    assert not killed.exists() and not reused.exists()
    assert [path.name for path in failed.iterdir()] == ["t-2-of-2.err"]
    assert (live / "said").is_dir() and len(list(live.iterdir())) == 4
    assert mine.is_dir() and mine.name.startswith(f"launch-{os.getpid()}-")
    quiet._remove_command_folder(mine)
