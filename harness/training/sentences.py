"""New sentences for a trained model: one per line (a tab-separated pair for pair tasks),
tokens separated by whitespace, as in the training files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from datamodules.batches import pad
from datamodules.errors import DataFormatError
from datamodules.text import read_lines
from datamodules.vocab import Vocab

MAX_REPORTED = 20  # bad lines listed per file


@dataclass(frozen=True)
class Sentence:
    """Token ids of one input line (``b`` for pairs) and its 0-based line index."""

    a: list[int]
    b: list[int] | None
    index: int


def read_sentences(path: Path, vocab: Vocab, lowercase: bool, pair: bool) -> list[Sentence]:
    """Every line of ``path`` as ids; raises :class:`DataFormatError` listing the bad lines."""
    lines = read_lines(path)
    if not lines:
        raise DataFormatError(
            path,
            None,
            "one sentence per line",
            "an empty file",
            "Give a file with at least one line.",
        )
    fields = 2 if pair else 1
    expected = "two tab-separated sentences" if pair else "one sentence (no tab)"
    bad = [n for n, line in enumerate(lines, 1) if len(line.split("\t")) != fields]
    if bad:
        shown = ", ".join(map(str, bad[:MAX_REPORTED])) + (
            " ..." if len(bad) > MAX_REPORTED else ""
        )
        raise DataFormatError(
            path,
            bad[0],
            f"{expected} per line",
            f"another number of tab-separated fields on lines {shown}",
            f"Fix those lines (this model's task takes {'pairs' if pair else 'single sentences'}).",
        )

    def ids(text: str) -> list[int]:
        tokens = text.split()
        return vocab.encode(t.lower() for t in tokens) if lowercase else vocab.encode(tokens)

    sentences = []
    for index, line in enumerate(lines):
        parts = line.split("\t")
        sentences.append(Sentence(ids(parts[0]), ids(parts[1]) if pair else None, index))
    return sentences


def collate_sentences(items: list[Sentence]) -> dict[str, torch.Tensor]:
    """A batch dict of the docs/architecture.md contract, without labels."""
    batch = {"index": torch.tensor([s.index for s in items])}
    if items[0].b is None:
        batch["tokens"], batch["mask"] = pad([s.a for s in items])
    else:
        batch["tokens_a"], batch["mask_a"] = pad([s.a for s in items])
        batch["tokens_b"], batch["mask_b"] = pad([s.b or [] for s in items])
    return batch
