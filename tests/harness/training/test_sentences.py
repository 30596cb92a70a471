"""New sentences for a trained model: ids through the checkpoint's vocabulary, pairs, bad lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from datamodules.errors import DataFormatError
from datamodules.vocab import Vocab
from harness.training.sentences import collate_sentences, read_sentences

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
    with pytest.raises(DataFormatError, match=r"bad.txt:1: .*lines 1, 3"):
        read_sentences(path, VOCAB, lowercase=False, pair=False)
    with pytest.raises(DataFormatError, match=r"lines 2, 3"):
        read_sentences(path, VOCAB, lowercase=False, pair=True)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(DataFormatError, match="an empty file"):
        read_sentences(empty, VOCAB, lowercase=False, pair=False)
