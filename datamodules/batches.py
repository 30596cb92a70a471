"""Encoded examples and the collate functions that pad them into batch dicts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch.utils.data import Dataset

from datamodules.readers.base import Example
from datamodules.task_spec import Kind
from datamodules.vocab import Vocab


@dataclass(frozen=True)
class Encoded:
    """Token ids of one example (``b`` for pairs), its label and its position in the split."""

    a: list[int]
    b: list[int] | None
    label: int | float
    index: int


class EncodedSplit(Dataset[Encoded]):
    """One split as token ids."""

    def __init__(self, examples: Sequence[Example], vocab: Vocab, lowercase: bool) -> None:
        def ids(tokens: Sequence[str]) -> list[int]:
            return vocab.encode(t.lower() for t in tokens) if lowercase else vocab.encode(tokens)

        self.items = [
            Encoded(ids(e.a), None if e.b is None else ids(e.b), e.label, i)
            for i, e in enumerate(examples)
        ]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> Encoded:
        return self.items[index]

    def lengths(self) -> list[int]:
        """Sorting key for bucketing: tokens in the example (both sentences for pairs)."""
        return [len(e.a) + (len(e.b) if e.b is not None else 0) for e in self.items]


def relatedness_target(score: float, classes: int = 5) -> list[float]:
    """Sparse target distribution p of a score y in [1, K] with y = sum_i i * p_i.

    Bi-BloSAN App. C (after Tai et al., 2015): p_i = y - floor(y) for i = floor(y) + 1,
    floor(y) - y + 1 for i = floor(y), 0 otherwise (i = 1..K).
    """
    floor = math.floor(score)
    target = [0.0] * classes
    target[floor - 1] = floor - score + 1.0
    if floor < classes:
        target[floor] = score - floor
    return target


def pad(sequences: Sequence[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Left-aligned ids long [B, L] (0 = ``<pad>``) and mask bool [B, L] (True = token).

    L >= 1: a batch of empty sentences (CR and MPQA have a few) gives one all-False column.
    """
    lengths = torch.tensor([len(s) for s in sequences])
    tokens = torch.zeros(len(sequences), max(int(lengths.max()), 1), dtype=torch.long)
    for row, sequence in enumerate(sequences):
        tokens[row, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
    return tokens, torch.arange(tokens.shape[1]) < lengths[:, None]


def collate(kind: Kind, items: Sequence[Encoded]) -> dict[str, torch.Tensor]:
    """Batch dict for ``kind`` (see docs/architecture.md), plus ``index`` long [B]."""
    batch: dict[str, torch.Tensor] = {"index": torch.tensor([e.index for e in items])}
    if kind == "single":
        batch["tokens"], batch["mask"] = pad([e.a for e in items])
    else:
        batch["tokens_a"], batch["mask_a"] = pad([e.a for e in items])
        batch["tokens_b"], batch["mask_b"] = pad([e.b or [] for e in items])
    if kind == "relatedness":
        batch["label"] = torch.tensor([float(e.label) for e in items])
        batch["target"] = torch.tensor([relatedness_target(float(e.label)) for e in items])
    else:
        batch["label"] = torch.tensor([int(e.label) for e in items], dtype=torch.long)
    return batch
