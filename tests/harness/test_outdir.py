"""removed_if_left_empty: a failed command leaves no empty --out folder, and nothing else goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.outdir import removed_if_left_empty


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
