"""Every input read and checked before training: all bad lines of all files at once, and files
that parse into nonsense (CR-only lines, an empty class, a one-class set, endless lines)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from datamodules import build_datamodule
from datamodules.datamodule import MAX_LENGTH
from datamodules.errors import DataFormatError


def _trec(folder: Path, train: list[str], test: list[str]) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "TREC.train.all").write_text("\n".join(train) + "\n")
    (folder / "TREC.test.all").write_text("\n".join(test) + "\n")
    return folder


GOOD = [f"{i % 6} question number {i} ?" for i in range(40)]


def _problems(datamodule) -> list[tuple[str, int | None]]:
    with pytest.raises(DataFormatError) as caught:
        datamodule.check_inputs()
    return [(problem.path.name, problem.line) for problem in caught.value.problems]


def test_bad_lines_of_train_test_and_vectors_are_named_together(tmp_path):
    """Today the bad test lines surfaced only after training, the vectors' never with them."""
    folder = _trec(tmp_path / "d", [*GOOD, "9 bad label"], ["0 fine ?", "x bad", "7 bad too"])
    vectors = tmp_path / "v.txt"
    vectors.write_text("the 0.1 0.2\nquestion nan 0.2\n")
    datamodule = build_datamodule("trec", folder, embeddings=vectors, embedding_dim=4)
    assert _problems(datamodule) == [
        ("TREC.train.all", 41),
        ("TREC.test.all", 2),
        ("TREC.test.all", 3),
        ("v.txt", 2),
    ]


def test_a_missing_test_file_is_named_before_training(tmp_path):
    folder = _trec(tmp_path / "d", GOOD, [])
    (folder / "TREC.test.all").unlink()
    assert _problems(build_datamodule("trec", folder, embedding_dim=4)) == [("TREC.test.all", None)]


def test_checked_files_are_not_read_again_by_setup(tmp_path, monkeypatch):
    folder = _trec(tmp_path / "d", GOOD, ["0 fine ?"])
    datamodule = build_datamodule("trec", folder, embedding_dim=4)
    datamodule.check_inputs()
    monkeypatch.setattr(datamodule, "_read", lambda source: pytest.fail(f"read {source} again"))
    datamodule.setup("fit")
    datamodule.setup("test")
    assert len(datamodule.datasets["test"]) == 1


def test_cr_only_line_endings_are_refused(tmp_path):
    """Today the whole file was one example."""
    folder = _trec(tmp_path / "d", GOOD, [])
    (folder / "TREC.test.all").write_bytes(b"0 one ?\r1 two ?\r2 three ?\r")
    datamodule = build_datamodule("trec", folder, embedding_dim=4)
    with pytest.raises(DataFormatError, match=r"TREC\.test\.all:1: expected lines ending in LF"):
        datamodule.check_inputs()


def test_an_empty_class_file_is_refused(fixtures, tmp_path):
    """Today an empty custrev.pos gave a one-class CR reporting test accuracy 1.0."""
    shutil.copytree(fixtures / "senteval" / "CR", tmp_path / "CR")
    (tmp_path / "CR" / "custrev.pos").write_text("")
    datamodule = build_datamodule("cr", tmp_path / "CR", layout="senteval", embedding_dim=4)
    with pytest.raises(DataFormatError, match=r"custrev\.pos: expected the sentences of class"):
        datamodule.check_inputs()


def test_training_data_of_one_class_is_refused(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "custrev.all").write_text("1 good\n" * 30)
    datamodule = build_datamodule("cr", folder, embedding_dim=4)
    with pytest.raises(DataFormatError, match="only class 'positive'"):
        datamodule.check_inputs()


def test_sentences_longer_than_max_length_are_named(tmp_path):
    """Today a 1 MB line went to the encoder (DiSAN: a 40 GB allocation)."""
    endless = "0 " + " ".join(["word"] * (MAX_LENGTH + 1))
    folder = _trec(tmp_path / "d", [*GOOD, endless], ["0 fine ?", endless])
    problems = _problems(build_datamodule("trec", folder, embedding_dim=4))
    assert problems == [("TREC.train.all", 41), ("TREC.test.all", 2)]
    raised = build_datamodule("trec", folder, embedding_dim=4, max_length=MAX_LENGTH + 1)
    raised.setup("test")
    assert max(raised.datasets["test"].lengths()) == MAX_LENGTH + 1


@pytest.mark.parametrize("value", [0, -3])
def test_max_length_must_be_positive(tmp_path, value):
    with pytest.raises(ValueError, match="max_length"):
        build_datamodule("trec", tmp_path, max_length=value)


def test_a_bad_byte_does_not_hide_the_files_other_problems(tmp_path, capsys):
    """Before: the non-UTF-8 byte of line 15 was the only problem named; the bad label of line 5
    and the empty line 10 came one run at a time."""
    from harness.cli import main

    data = tmp_path / "data"
    shutil.copytree(Path(__file__).parent / "fixtures" / "kim2014", data)
    lines = [f"{i % 2} a fine film number {i}".encode() for i in range(1, 21)]
    lines[4] = b"7 a label that sst2 has not"
    lines[9] = b""
    lines[14] = b"1 caf\xe9 in latin-1"
    (data / "stsa.binary.train").write_bytes(b"\n".join(lines) + b"\n")
    assert main(["data", "stats", "--task", "sst2", "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    named = [line for line in err.splitlines() if "stsa.binary.train:" in line]
    assert [line.split(":")[2] for line in named] == ["5", "10", "15"], err
    assert "byte 0xe9 at column 6" in named[2] and "an empty line" in named[1]
