"""removed_if_left_empty: a failed command leaves no empty --out folder, and nothing else goes;
one_writer: one process writes an --out folder, a second one is refused naming the holder."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.outdir import LOCK, FolderBusyError, holds_no_file, one_writer, removed_if_left_empty


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
@pytest.mark.parametrize("command", ["fit", "profile", "suite"])
def test_fit_profile_and_suite_exit_2_naming_the_holder(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, command: str
) -> None:
    folder = tmp_path / "out"
    data = ["--data-dir", str(trec_dir), "--embeddings", str(trec_dir / "glove.txt")]
    argv, lock = {
        "fit": (["fit", "--task", "trec", "--encoder", "multi_cnn", *data], LOCK),
        "profile": (["profile", "--encoders", "multi_cnn", "--preset", "quick"], LOCK),
        "suite": (["suite", "--tasks", "trec", "--encoders", "multi_cnn", *data],
                  ".sanbench-1-of-1.lock"),
    }[command]  # fmt: skip
    with held_by_another_process(folder, lock) as pid:
        assert main([*argv, "--out", str(folder)]) == 2
    error = capsys.readouterr().err
    assert f"is being written by another sanbench process (PID {pid})" in error
    assert "Traceback" not in error
    assert sorted(p.name for p in folder.iterdir()) == [lock]  # nothing written
