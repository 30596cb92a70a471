"""The embedding matrix for a vocabulary: pretrained rows where available, else U(-0.05, 0.05)."""

from __future__ import annotations

import numpy as np
import torch

from datamodules.vectors import Vectors
from datamodules.vocab import Vocab

INIT_RANGE = 0.05


def embedding_matrix(
    vocab: Vocab, vectors: Vectors | None, dim: int, seed: int
) -> tuple[torch.Tensor, float]:
    """Float [V, D] matrix and the share of vocabulary words that got a pretrained row.

    Row 0 (``<pad>``) is zeros; words without a vector (``<unk>`` included) are drawn
    from U(-0.05, 0.05) with ``seed``, as in the DiSAN / Bi-BloSAN setups. ``D`` is the
    vectors' dimension, or ``dim`` without vectors.
    """
    width = vectors.dim if vectors is not None else dim
    generator = torch.Generator().manual_seed(seed)
    matrix = torch.empty(len(vocab), width).uniform_(-INIT_RANGE, INIT_RANGE, generator=generator)
    covered = 0.0
    if vectors is not None:
        pairs = [(i, vectors.row(w)) for i, w in enumerate(vocab.itos[2:], start=2)]
        pairs = [(i, r) for i, r in pairs if r is not None]
        if pairs:
            ids, rows = zip(*pairs, strict=True)
            matrix[list(ids)] = torch.from_numpy(np.asarray(vectors.matrix[list(rows)]))
        covered = len(pairs) / max(len(vocab) - 2, 1)
    matrix[0] = 0.0
    return matrix, covered
