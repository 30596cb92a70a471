"""A share of the epoch that keeps no batch is refused before any data file is parsed or vector
read, when the training files' lines already say so (issue 54, leftover: ``--trainer.
limit_train_batches 0.0001`` was judged only after the vectors were read and the sentences
tokenised)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from datamodules.datamodule import BenchmarkDataModule
from datamodules.text import line_count, read_lines
from harness.cli import main
from tests.harness.problem_lines import problem_lines

ROOT = Path(__file__).parents[4]
DATA = ROOT / "tests" / "datamodules" / "fixtures" / "kim2014"
FIT = ["fit", "--task", "sst2", "--encoder", "multi_cnn", "--data-dir", str(DATA), "--out", "r"]


def test_a_share_that_keeps_no_batch_of_the_lines_is_refused_before_any_file_is_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def parsed(*_: object) -> None:
        raise AssertionError("a data file was parsed")

    monkeypatch.setattr(BenchmarkDataModule, "_prepare", parsed)
    os.chdir(tmp_path)
    assert main([*FIT, "--trainer.limit_train_batches", "0.0001"]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        "sanbench fit: --trainer.limit_train_batches 0.0001: trains nothing: 0.0001 of at most "
    ), lines
    assert "training files' " in lines[0] and "at most one example each" in lines[0], lines
    assert list(tmp_path.iterdir()) == []


def test_the_bound_is_at_least_the_batches_of_the_data_as_read() -> None:
    """The line count bounds the epoch the datamodule builds, dev share carved off."""
    datamodule = BenchmarkDataModule("sst2", DATA, batch_size=2)
    most = datamodule.most_epoch_batches(None)
    datamodule.setup("fit")
    assert most is not None and most[0] >= datamodule.epoch_batches(None) > 0


@pytest.mark.parametrize(
    "content", [b"", b"a\n", b"a", b"a\r\nb\r\n", b"a\n\nb", "é\n".encode("cp1252")]
)
def test_lines_are_counted_as_read_lines_splits_them(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "TREC.train.all"  # a name read as cp1252 where UTF-8 fails
    path.write_bytes(content)
    assert line_count(path) == len(read_lines(path))
    assert line_count(path, "cp500") is None  # EBCDIC writes no \n byte
