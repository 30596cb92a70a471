"""Reverse every sentence of a left-aligned padded batch within its own length."""

from __future__ import annotations

import torch


def reversed_index(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """long [B, L]: position t -> len-1-t inside each sentence, padded positions stay in place.

    Gathering with it reverses every sentence within its own length (an involution), so a
    backward recurrence run left to right over the result starts at each sentence's last real
    token, and every padded step comes after all real steps.
    """
    steps = torch.arange(max_len, device=lengths.device).unsqueeze(0)
    lengths = lengths.unsqueeze(1)
    return torch.where(steps < lengths, lengths - 1 - steps, steps)


def gather_steps(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """x [B, L, D] reordered along L by ``index`` [B, L]."""
    return x.gather(1, index.unsqueeze(-1).expand_as(x))
