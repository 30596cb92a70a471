"""DiSAN's word-level baselines (DiSAN, AAAI 2018, Sec. 5.1; Bi-BloSAN Table 3).

``word_additive``: "Word Embedding with additive attention", one scalar score per token
(Bi-BloSAN's "w/o mBloSA & source2token": word embeddings plus a vanilla attention without q).
``word_s2t``: "Word Embedding with s2t self-attention", i.e. DiSAN with the DiSA blocks removed.
There is no context fusion: the token representations are the (dropped-out) word embeddings.
"""

from __future__ import annotations

import torch
from torch import nn

from encoders.base import Encoder, EncoderOutput
from encoders.dropout_settings import DISAN_SNLI
from encoders.layers.masking import zero_padding
from encoders.layers.source2token import Source2Token
from encoders.registry import register_encoder


class WordAttention(Encoder):
    """s = sum_i p_i * x_i with f(x_i) = W^T ELU(W1 x_i + b1) + b (DiSAN Eq. 5 without q, Eq. 12).

    ``multi_dim=False``: W is a vector, one probability per token (additive attention);
    ``multi_dim=True``: W is a matrix, one probability per token and feature (source2token).
    W1 has ``hidden_dim`` rows. Glorot-uniform weights, zero biases (DiSAN Sec. 5).
    """

    def __init__(self, input_dim: int, hidden_dim: int, multi_dim: bool, dropout: float):
        super().__init__()
        self.input_dim = self.token_dim = self.output_dim = input_dim
        self.dropout = nn.Dropout(dropout)
        self.attention = Source2Token(input_dim, multi_dim, nn.ELU, dropout, hidden_dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        tokens = zero_padding(self.dropout(x), mask)
        return EncoderOutput(tokens=tokens, pooled=self.attention(tokens, mask))


@register_encoder(
    "word_additive",
    paper="DiSAN (AAAI 2018) Sec. 5.1: word embedding + additive attn",
    dropout_from=DISAN_SNLI,
    memory_by_shape=True,
)
def build_word_additive(
    input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.25
) -> Encoder:
    """Word embeddings + vanilla additive attention (one scalar score per token)."""
    return WordAttention(input_dim, hidden_dim, multi_dim=False, dropout=dropout)


@register_encoder(
    "word_s2t",
    paper="DiSAN (AAAI 2018) Sec. 5.1: word embedding + s2t self-attn",
    dropout_from=DISAN_SNLI,
    memory_by_shape=True,
)
def build_word_s2t(input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.25) -> Encoder:
    """Word embeddings + multi-dimensional source2token self-attention."""
    return WordAttention(input_dim, hidden_dim, multi_dim=True, dropout=dropout)
