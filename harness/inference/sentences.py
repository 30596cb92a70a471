"""New sentences for a trained model: one per line (a tab-separated pair for pair tasks),
tokens separated by whitespace, as in the training files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from datamodules.batches import pad
from datamodules.errors import DataFormatError, Problems
from datamodules.text import read_lines
from datamodules.vocab import Vocab


@dataclass(frozen=True)
class Sentence:
    """Token ids of one input line (``b`` for pairs) and its 0-based line index."""

    a: list[int]
    b: list[int] | None
    index: int


def read_sentences(
    path: Path, vocab: Vocab, lowercase: bool, pair: bool, encoding: str | None = None
) -> list[Sentence]:
    """Every line of ``path`` (decoded with ``encoding``, None: UTF-8) as ids; raises
    :class:`DataFormatError` listing every bad line: another number of fields, or a sentence
    without a token (an empty sentence would still get a label)."""
    lines = read_lines(path, encoding)
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
    task = "pairs" if pair else "single sentences"
    problems = Problems(path)
    for number, line in enumerate(lines, 1):
        parts = line.split("\t")
        if len(parts) != fields:
            problems.add(
                number,
                expected,
                f"{len(parts)} tab-separated fields",
                f"fix the line (this model's task takes {task})",
            )
        elif any(not part.split() for part in parts):
            problems.add(number, expected, "an empty sentence", "remove the line or give it words")
    problems.raise_any()

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
