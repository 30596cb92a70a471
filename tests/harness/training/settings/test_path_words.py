"""A file given for a folder and a folder for a file are called so (issue 56.5: ``--data-dir
FILE`` said "no such folder", ``--embeddings FOLDER`` "no such file"), in fit and in suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from harness.training.settings.fit_overrides import DataOptions

FIXTURES = Path(__file__).parents[3] / "datamodules" / "fixtures"
VECTORS = FIXTURES / "vectors" / "tiny.glove.txt"


def test_fit_names_a_file_given_for_the_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    words = ["fit", "--task", "sst2", "--encoder", "multi_cnn", "--out", "x1"]
    assert main([*words, "--data-dir", str(VECTORS), "--embeddings", str(FIXTURES)]) == 2
    err = capsys.readouterr().err
    assert f"--data-dir {VECTORS}: is a file, expected a folder" in err, err
    assert list(tmp_path.iterdir()) == []


def test_fit_names_a_folder_given_for_the_vectors_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    words = ["fit", "--task", "sst2", "--encoder", "multi_cnn", "--out", "x1"]
    assert (
        main([*words, "--data-dir", str(FIXTURES / "kim2014"), "--embeddings", str(FIXTURES)]) == 2
    )
    err = capsys.readouterr().err
    assert f"--embeddings {FIXTURES}: is a folder, expected a file" in err, err


def test_every_command_that_trains_says_so_too() -> None:
    problems = DataOptions(data_dir=VECTORS, embeddings=FIXTURES).file_problems("always")
    assert problems == [
        f"--data-dir {VECTORS}: is a file, expected a folder",
        f"--embeddings {FIXTURES}: is a folder, expected a file",
    ]


def test_fit_without_out_is_one_line_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fit`` with its data but no ``--out`` ended as "internal error: TypeError: expected str,
    bytes or os.PathLike object, not NoneType" (the run folder was read before it was checked)."""
    monkeypatch.chdir(tmp_path)
    words = ["fit", "--task", "sst2", "--encoder", "multi_cnn"]
    assert main([*words, "--data-dir", str(FIXTURES / "kim2014")]) == 2
    err = capsys.readouterr().err
    assert "--out is required: the run folder" in err and "internal error" not in err, err
    assert list(tmp_path.iterdir()) == []
