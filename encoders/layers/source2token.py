"""Multi-dimensional source2token self-attention (DiSAN Sec. 3.2, Eq. 11-12)."""

from __future__ import annotations

import torch
from torch import nn

from encoders.layers.masking import masked_softmax


class Source2Token(nn.Module):
    """s = sum_i P_i * x_i with P = softmax_i(W^T sigma(W1 x_i + b1) + b), per feature.

    ``multi_dim=False`` gives the vanilla (one score per token) variant: f(x_i) = w^T sigma(...).
    ``activation`` is sigma (ELU in DiSAN / Bi-BloSAN / MTSA). A sentence with no real token
    gets the zero vector.
    """

    def __init__(self, dim: int, multi_dim: bool = True, activation: type[nn.Module] = nn.ELU):
        super().__init__()
        self.hidden = nn.Linear(dim, dim)
        self.activation = activation()
        self.score = nn.Linear(dim, dim if multi_dim else 1)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        scores = self.score(self.activation(self.hidden(x)))  # [B, L, D] or [B, L, 1]
        weights = masked_softmax(scores, mask.unsqueeze(-1), dim=1)
        return (weights * x).sum(dim=1)
