"""New sentences for a trained model: one per line (a tab-separated pair for pair tasks),
tokens separated by whitespace, as in the training files."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import torch

from datamodules.batches import pad
from datamodules.errors import DataFormatError, Problems, listed_lines
from datamodules.text import read_lines
from datamodules.vocab import Vocab


class EmptySentenceWarning(UserWarning):
    """Lines without a word: read as training reads them, as a sentence of no word."""


@dataclass(frozen=True)
class Sentence:
    """Token ids of one input line (``b`` for pairs), its 0-based line index and its text."""

    a: list[int]
    b: list[int] | None
    index: int
    text: str = ""


def read_sentences(
    path: Path, vocab: Vocab, lowercase: bool, pair: bool, encoding: str | None = None
) -> list[Sentence]:
    """Every line of ``path`` (decoded with ``encoding``, None: UTF-8) as ids; raises
    :class:`DataFormatError` listing every line with another number of fields. A sentence
    without a word is read as the training files' readers read one (its prediction is the
    model's answer for no word), with one :class:`EmptySentenceWarning` naming those lines."""
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
    empty = []
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
            empty.append(number)
    problems.raise_any()
    if empty:
        warnings.warn(
            f"{path}: {len(empty)} line(s) with an empty sentence ({listed_lines(empty)}); "
            "each is read as a sentence of no word, as training reads such a line (its output "
            "is the model's for an empty input)",
            EmptySentenceWarning,
            stacklevel=2,
        )

    def ids(text: str) -> list[int]:
        tokens = text.split()
        return vocab.encode(t.lower() for t in tokens) if lowercase else vocab.encode(tokens)

    sentences = []
    for index, line in enumerate(lines):
        parts = line.split("\t")
        sentences.append(Sentence(ids(parts[0]), ids(parts[1]) if pair else None, index, line))
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
