"""Attention masks and a masked softmax that never produces NaN.

Conventions: ``mask`` is bool [B, L], True at real tokens. Pairwise masks are bool [.., L_i, L_j]
where entry (i, j) says whether query position i may attend to key position j.
"""

from __future__ import annotations

import torch


def masked_softmax(scores: torch.Tensor, allowed: torch.Tensor, dim: int) -> torch.Tensor:
    """Softmax of ``scores`` over ``dim`` restricted to ``allowed`` entries.

    The maximum over allowed entries is subtracted before exp (stable), disallowed entries get
    exactly zero probability, and a slice with nothing allowed gives all zeros instead of NaN.
    ``allowed`` must broadcast to ``scores``.
    """
    allowed = allowed.expand_as(scores) if allowed.shape != scores.shape else allowed
    neg_inf = torch.finfo(scores.dtype).min
    filled = scores.masked_fill(~allowed, neg_inf)
    peak = filled.amax(dim=dim, keepdim=True).detach()
    weights = torch.exp(filled - peak) * allowed
    total = weights.sum(dim=dim, keepdim=True)
    return weights / total.clamp_min(torch.finfo(scores.dtype).tiny)


def direction_mask(length: int, direction: str, device: torch.device | None = None) -> torch.Tensor:
    """bool [L, L] for query i attending to key j.

    ``forward``: j < i (a token sees only earlier tokens); ``backward``: j > i;
    ``nodiag``: j != i; ``all``: everything. The diagonal is excluded except for ``all``.
    """
    idx = torch.arange(length, device=device)
    query, key = idx.unsqueeze(-1), idx.unsqueeze(0)
    if direction == "forward":
        return key < query
    if direction == "backward":
        return key > query
    if direction == "nodiag":
        return key != query
    if direction == "all":
        return torch.ones(length, length, dtype=torch.bool, device=device)
    raise ValueError(f"direction must be forward, backward, nodiag or all, not {direction!r}")


def direction_key_span(direction: str, rows: slice, length: int) -> slice:
    """The keys [start, stop) that :func:`direction_mask` lets any query in ``rows`` attend
    (``rows.stop`` may pass ``length``): ``forward`` keys before the last query, ``backward``
    keys after the first, ``nodiag`` every key but a lone query's own, ``all`` every key.
    Empty when no query of ``rows`` may attend."""
    first, last = rows.start, min(rows.stop, length) - 1
    start, stop = 0, length
    if direction == "forward":
        stop = last
    elif direction == "backward":
        start = first + 1
    elif direction == "nodiag" and first == last:
        start, stop = int(first == 0), length - int(last == length - 1)
    start = min(max(start, 0), length)
    return slice(start, max(start, min(stop, length)))


def zero_padding(tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Zero the rows of ``tokens`` [B, L, D] at padded positions."""
    return tokens * mask.unsqueeze(-1).to(tokens.dtype)
