"""Vocabulary from the training split: ``<pad>`` = 0, ``<unk>`` = 1, then by frequency."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

PAD, UNK = "<pad>", "<unk>"


class Vocab:
    """Token <-> id maps (``itos`` list, ``stoi`` dict); unknown tokens map to ``<unk>``."""

    def __init__(self, itos: Sequence[str]) -> None:
        if list(itos[:2]) != [PAD, UNK]:
            raise ValueError(f"a vocabulary starts with {PAD}, {UNK}; got {list(itos[:2])}")
        self.itos = list(itos)
        self.stoi = {token: index for index, token in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise ValueError("a vocabulary must not repeat tokens")

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, tokens: Iterable[str]) -> list[int]:
        """Ids of ``tokens``; ``<unk>`` (1) for unknown tokens and for a literal ``<pad>``."""
        return [self.stoi.get(token, 1) or 1 for token in tokens]


def build_vocab(sentences: Iterable[Sequence[str]]) -> Vocab:
    """Every token of ``sentences``, most frequent first, ties alphabetical (deterministic)."""
    counts = Counter(token for sentence in sentences for token in sentence)
    counts.pop(PAD, None)
    counts.pop(UNK, None)
    ordered = sorted(counts, key=lambda token: (-counts[token], token))
    return Vocab([PAD, UNK, *ordered])
