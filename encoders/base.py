"""The one interface every encoder implements."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class EncoderOutput:
    """What an encoder returns.

    tokens: float [B, L, token_dim], context-aware token representations, zeros at padding.
    pooled: float [B, output_dim], the sentence encoding.
    """

    tokens: torch.Tensor
    pooled: torch.Tensor


class Encoder(nn.Module):
    """Base class: ``forward(x [B, L, input_dim], mask bool [B, L]) -> EncoderOutput``.

    ``mask`` is True at real tokens and left-aligned (a sentence occupies positions 0..len-1).
    Subclasses set ``input_dim``, ``token_dim`` and ``output_dim``.
    """

    input_dim: int
    token_dim: int
    output_dim: int

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:  # pragma: no cover
        raise NotImplementedError
