"""Multi-dimensional source2token self-attention (DiSAN Sec. 3.2, Eq. 11-12)."""

from __future__ import annotations

import torch
from torch import nn

from encoders.layers.init import glorot_


class Source2Token(nn.Module):
    """s = sum_i P_i * x_i with P = softmax_i(W^T sigma(W1 x_i + b1) + b), per feature.

    ``multi_dim=False`` gives the vanilla (one score per token) variant: f(x_i) = w^T sigma(...).
    ``activation`` is sigma (ELU in DiSAN / Bi-BloSAN / MTSA). A sentence with no real token
    gets the zero vector. ``dropout`` drops the input of the score path only (the weighted sum
    uses the undropped x), as in the DiSAN authors' ``multi_dimensional_attention``.
    ``hidden_dim`` is the width of W1 (default: ``dim``, as in the papers). W1 and W start
    Glorot-uniform, b1 and b zero (DiSAN Sec. 5).
    """

    def __init__(
        self,
        dim: int,
        multi_dim: bool = True,
        activation: type[nn.Module] = nn.ELU,
        dropout: float = 0.0,
        hidden_dim: int | None = None,
    ):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        hidden_dim = hidden_dim or dim
        self.hidden = nn.Linear(dim, hidden_dim)
        self.activation = activation()
        self.score = nn.Linear(hidden_dim, dim if multi_dim else 1)
        glorot_(self)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        scores = self.score(self.activation(self.hidden(self.dropout(x))))  # [B, L, D] or [B, L, 1]
        # padded tokens get exactly zero weight; a sentence with no real token keeps its raw
        # scores (a finite softmax) and gets s = 0 on the [B, D] sum, so autograd keeps one
        # [B, L, D] tensor (the softmax output) where a masked softmax with zero rows keeps three
        real = mask.any(dim=1, keepdim=True)  # [B, 1]
        hidden = (~mask & real).unsqueeze(-1)  # [B, L, 1]
        weights = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=1)
        return (weights * x).sum(dim=1).masked_fill(~real, 0.0)
