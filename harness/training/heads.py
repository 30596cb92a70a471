"""Task heads on top of sentence encodings (Bi-BloSAN §4.1, §4.3, §4.4 and App. C).

Dropout is applied to the input of each fully connected layer, as the authors' TensorFlow
``linear(..., input_keep_prob)`` does; the 300-d hidden layer uses the configured activation
(ReLU in Bi-BloSAN §4.1 and MTSA App. B, ELU in DiSAN §5).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from encoders.layers.activation import activation_class

HEAD_HIDDEN = 300  # the FC layer before the softmax: 300D (Bi-BloSAN §4.1/§4.3, DiSAN §5.2)


class Classifier(nn.Module):
    """features -> dropout -> 300-d FC -> activation -> dropout -> ``num_classes`` logits."""

    def __init__(self, in_dim: int, num_classes: int, hidden: int, dropout: float, activation: str):
        super().__init__()
        self.net = nn.Sequential(
            nn.Dropout(dropout),
            nn.Linear(in_dim, hidden),
            activation_class(activation)(),
            nn.Dropout(dropout),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)


def pair_features(s_p: torch.Tensor, s_h: torch.Tensor) -> torch.Tensor:
    """NLI relation vector [s_p; s_h; s_p - s_h; s_p ⊙ s_h] (Bi-BloSAN §4.1, Bowman et al. 2016)."""
    return torch.cat([s_p, s_h, s_p - s_h, s_p * s_h], dim=-1)


def relatedness_features(s_1: torch.Tensor, s_2: torch.Tensor) -> torch.Tensor:
    """Relatedness vector [s_1 ⊙ s_2; |s_1 - s_2|] (Bi-BloSAN §4.3, Tai et al. 2015)."""
    return torch.cat([s_1 * s_2, (s_1 - s_2).abs()], dim=-1)


def head_input(kind: str, s_a: torch.Tensor, s_b: torch.Tensor | None = None) -> torch.Tensor:
    """What the head of a task of ``kind`` reads: a sentence's encoding (single), or a pair's
    :func:`pair_features` (pair) or :func:`relatedness_features` (relatedness)."""
    if kind == "single":
        return s_a
    assert s_b is not None
    features = pair_features if kind == "pair" else relatedness_features
    return features(s_a, s_b)


def head_input_dim(kind: str, encoding_dim: int) -> int:
    """The width of :func:`head_input` on ``encoding_dim``-d encodings, read off the features
    themselves on meta tensors (nothing allocated): 1, 4 or 2 encodings wide."""
    encoding = torch.empty(1, encoding_dim, device="meta")
    return head_input(kind, encoding, encoding).shape[-1]


def relatedness_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of KL(p || p_hat), p the sparse target of Bi-BloSAN App. C eq. (26)."""
    return F.kl_div(F.log_softmax(logits, dim=-1), target, reduction="batchmean")


def relatedness_score(logits: torch.Tensor) -> torch.Tensor:
    """y_hat = beta^T p_hat with beta = [1, ..., K] (Bi-BloSAN App. C eq. (25))."""
    beta = torch.arange(1, logits.shape[-1] + 1, dtype=logits.dtype, device=logits.device)
    return F.softmax(logits, dim=-1) @ beta
