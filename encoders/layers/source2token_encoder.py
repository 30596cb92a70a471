"""A context-fusion module with a multi-dimensional source2token attention on top.

This is the sentence-encoding recipe of the baselines in Bi-BloSAN (ICLR 2018, Sec. 4) and MTSA
(NAACL 2019, Sec. 4): "a multi-dim source2token self-attention is applied on the top of the context
fusion module to produce the sequence embedding" (authors' ``sentence_encoding_models``).
"""

from __future__ import annotations

import torch
from torch import nn

from encoders.base import Encoder, EncoderOutput
from encoders.layers.masking import zero_padding
from encoders.layers.source2token import Source2Token


class Source2TokenEncoder(Encoder):
    """tokens = fusion(dropout(x), mask); pooled = multi-dim source2token(tokens) (DiSAN Eq. 12).

    ``fusion`` maps ``(x [B, L, input_dim], mask [B, L])`` to ``[B, L, token_dim]``; its padded rows
    are zeroed here. ``activation`` is sigma of the source2token score MLP, which starts
    Glorot-initialised with zero biases (``fusion`` initialises itself).
    """

    def __init__(
        self,
        fusion: nn.Module,
        input_dim: int,
        token_dim: int,
        dropout: float,
        activation: type[nn.Module],
    ):
        super().__init__()
        self.input_dim = input_dim
        self.token_dim = token_dim
        self.output_dim = token_dim
        self.dropout = nn.Dropout(dropout)
        self.fusion = fusion
        self.source2token = Source2Token(token_dim, activation=activation, dropout=dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        tokens = zero_padding(self.fusion(self.dropout(x), mask), mask)
        return EncoderOutput(tokens=tokens, pooled=self.source2token(tokens, mask))
