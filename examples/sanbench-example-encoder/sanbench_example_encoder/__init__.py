"""A sanbench encoder plugin: ``gated_bow``, a gated bag of words.

Each token is projected and gated, ``h_i = tanh(W x_i + b) * sigmoid(G x_i + c)``; the sentence
is the mean of its tokens' ``h_i``. Padding is masked out everywhere, so a padded token never
changes a real token's output and a sentence's output does not depend on its batch.
"""

from __future__ import annotations

import torch
from torch import nn

from encoders import Encoder, EncoderOutput, register_encoder


class GatedBagOfWords(Encoder):
    def __init__(self, input_dim: int, hidden_dim: int, dropout: float) -> None:
        super().__init__()
        self.input_dim = input_dim
        self.token_dim = self.output_dim = hidden_dim
        self.dropout = nn.Dropout(dropout)
        self.value = nn.Linear(input_dim, hidden_dim)
        self.gate = nn.Linear(input_dim, hidden_dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        x = self.dropout(x)
        tokens = torch.tanh(self.value(x)) * torch.sigmoid(self.gate(x))
        tokens = tokens * mask.unsqueeze(-1).to(tokens.dtype)
        count = mask.sum(dim=1, keepdim=True).clamp(min=1).to(tokens.dtype)
        return EncoderOutput(tokens=tokens, pooled=tokens.sum(dim=1) / count)


@register_encoder("gated_bow", paper="sanbench-example-encoder (a worked plugin example)")
def build_gated_bow(
    input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.0
) -> GatedBagOfWords:
    """Every builder takes ``input_dim``, ``hidden_dim`` and ``dropout`` (sanbench passes them)."""
    return GatedBagOfWords(input_dim, hidden_dim, dropout)
