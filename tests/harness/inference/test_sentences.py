"""New sentences for a trained model: ids through the checkpoint's vocabulary, pairs, bad lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from datamodules.errors import DataFormatError
from datamodules.vocab import Vocab
from harness.inference.sentences import EmptySentenceWarning, collate_sentences, read_sentences

VOCAB = Vocab(["<pad>", "<unk>", "a", "cat", "sat"])


def test_pairs_become_padded_batches_with_line_indices(tmp_path: Path) -> None:
    path = tmp_path / "pairs.txt"
    path.write_text("A cat sat\ta cat\nsat\tdog a cat\n")
    items = read_sentences(path, VOCAB, lowercase=True, pair=True)
    assert [(s.a, s.b, s.index) for s in items] == [([2, 3, 4], [2, 3], 0), ([4], [1, 2, 3], 1)]
    batch = collate_sentences(items)
    assert batch["tokens_a"].tolist() == [[2, 3, 4], [4, 0, 0]]
    assert batch["mask_b"].tolist() == [[True, True, False], [True, True, True]]
    assert batch["index"].tolist() == [0, 1] and "label" not in batch


def test_case_is_kept_unless_the_model_lowercased(tmp_path: Path) -> None:
    path = tmp_path / "one.txt"
    path.write_text("A cat\n")
    assert read_sentences(path, VOCAB, lowercase=False, pair=False)[0].a == [1, 3]


def test_every_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("a cat\tsat\nfine\nx\ty\tz\n")
    with pytest.raises(DataFormatError) as single:
        read_sentences(path, VOCAB, lowercase=False, pair=False)
    assert [line.split(": ")[0] for line in str(single.value).splitlines()] == [
        f"{path}:1",
        f"{path}:3",
    ]
    with pytest.raises(DataFormatError) as pairs:
        read_sentences(path, VOCAB, lowercase=False, pair=True)
    assert [error.line for error in pairs.value.problems] == [2, 3]
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(DataFormatError, match="an empty file"):
        read_sentences(empty, VOCAB, lowercase=False, pair=False)


def test_empty_sentences_are_read_as_training_reads_them_and_named(tmp_path: Path) -> None:
    """Before: refused, while the training files' readers take a line without words."""
    path = tmp_path / "gaps.txt"
    path.write_text("a cat\n\n   \nsat\n")
    with pytest.warns(
        EmptySentenceWarning, match=r"2 line\(s\) with an empty sentence \(line 2, 3\)"
    ):
        items = read_sentences(path, VOCAB, lowercase=False, pair=False)
    assert [item.a for item in items][1:3] == [[], []]
    assert [item.text for item in items] == ["a cat", "", "   ", "sat"]
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("a cat\tsat\na\t \n")
    with pytest.warns(EmptySentenceWarning, match=r"\(line 2\)"):
        assert read_sentences(pairs, VOCAB, lowercase=False, pair=True)[1].b == []


def test_the_input_is_decoded_with_the_given_encoding(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes("a caf\xe9 cat\n".encode("latin-1"))
    with pytest.raises(DataFormatError, match="--encoding"):
        read_sentences(path, VOCAB, lowercase=False, pair=False)
    (sentence,) = read_sentences(path, VOCAB, lowercase=False, pair=False, encoding="latin-1")
    assert sentence.a == [2, 1, 3]


def test_the_empty_sentence_warning_reads_right_for_predict_and_encode(tmp_path: Path) -> None:
    """Issue 56.13: ``encode`` warned "predicted from no word"; the warning serves both."""
    path = tmp_path / "gaps.txt"
    path.write_text("a cat\n\n")
    with pytest.warns(EmptySentenceWarning) as warned:
        read_sentences(path, VOCAB, lowercase=False, pair=False)
    (message,) = [str(w.message) for w in warned]
    assert "predicted" not in message and "read as a sentence of no word" in message


@pytest.mark.parametrize("command", ["predict", "encode"])
def test_the_help_names_every_column_written(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56.13: ``predict --help`` listed ``line, label, p_<class>``, not ``sentence``."""
    from harness.cli import parse_command

    with pytest.raises(SystemExit):
        parse_command(command, ["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    if command == "predict":
        assert "line, sentence, label, p_<class> per class" in shown, shown  # plain text
    else:
        assert "float32 [lines, output_dim]" in shown, shown
