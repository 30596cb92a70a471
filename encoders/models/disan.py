"""DiSAN: Directional Self-Attention Network (Shen et al., AAAI 2018, Sec. 3.3-4).

The token2token attention is ``encoders.layers.tanh_attention``: ``attention_impl="chunked"``
(the default: exact, faster, query tiles) keeps no [B, D, L, L] tensor for backward, ``"naive"``
(the papers' computation) two per block.
"""

from __future__ import annotations

import torch
from torch import nn

from encoders.base import Encoder, EncoderOutput
from encoders.dropout_settings import DISAN_SNLI
from encoders.layers.init import glorot_
from encoders.layers.masking import direction_mask, zero_padding
from encoders.layers.source2token import Source2Token
from encoders.layers.tanh_attention import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_IMPL,
    check_impl,
    memory_by_shape,
    tanh_attention,
)
from encoders.registry import register_encoder

PAPER = "Shen et al. 2018, DiSAN: Directional Self-Attention Network (AAAI)"


class MultiDimToken2Token(nn.Module):
    """Masked multi-dimensional token2token self-attention (Eq. 15-16).

    f(h_i, h_j) = c * tanh((W1 h_i + W2 h_j + b) / c) + M_ij, softmax over keys i per feature,
    s_j = sum_i P_ji * h_i. ``allowed`` is bool [B, L_query, L_key]. Because the logits lie in
    [-c, c], the constant c is subtracted before exp instead of the running maximum: the shift
    cancels exactly and exp stays in [e^-2c, 1], so no [B, L, L, D] max reduction is needed.
    A query with nothing allowed gets s = 0. ``impl`` / ``chunk_size``: see ``tanh_attention``.
    """

    def __init__(
        self,
        dim: int,
        c: float = 5.0,
        dropout: float = 0.0,
        impl: str = DEFAULT_IMPL,
        chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    ):
        super().__init__()
        check_impl(impl, chunk_size)
        self.c = c
        self.impl, self.chunk_size = impl, chunk_size
        self.dropout = nn.Dropout(dropout)
        self.key = glorot_(nn.Linear(dim, dim, bias=False))  # W1, applied to h_i
        self.query = glorot_(nn.Linear(dim, dim))  # W2 and b, applied to h_j

    def forward(
        self, h: torch.Tensor, allowed: torch.Tensor, direction: str = "all"
    ) -> torch.Tensor:
        """``allowed`` allows nothing ``direction`` (a :func:`direction_mask` name) forbids."""
        scored = self.dropout(h)
        key, query = self.key(scored) / self.c, self.query(scored) / self.c
        return tanh_attention(query, key, h, allowed, self.c, self.impl, self.chunk_size, direction)


class FusionGate(nn.Module):
    """F = sigmoid(W_f1 s + W_f2 h + b_f), u = F * h + (1 - F) * s (Eq. 19-20)."""

    def __init__(self, dim: int, dropout: float = 0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.from_attention = glorot_(nn.Linear(dim, dim))  # W_f1 and b_f
        self.from_input = glorot_(nn.Linear(dim, dim, bias=False))  # W_f2

    def forward(self, s: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        gate = torch.sigmoid(
            self.from_attention(self.dropout(s)) + self.from_input(self.dropout(h))
        )
        return gate * h + (1 - gate) * s


class DiSA(nn.Module):
    """Directional self-attention block: h = ELU(W_h x + b_h) (Eq. 14), masked multi-dimensional
    token2token attention (Eq. 15) and fusion gate (Eq. 19-20).

    ``direction`` is a :func:`direction_mask` name: ``forward`` (token j sees i < j, M_fw of
    Eq. 17), ``backward`` (i > j, M_bw of Eq. 18) or ``nodiag`` (M_diag, i != j).
    ``impl`` / ``chunk_size`` choose how the attention is computed (same numbers either way).
    """

    def __init__(
        self,
        input_dim: int,
        hidden_dim: int,
        direction: str,
        c: float = 5.0,
        dropout: float = 0.0,
        impl: str = DEFAULT_IMPL,
        chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    ):
        super().__init__()
        direction_mask(1, direction)  # fail early on an unknown direction
        self.direction = direction
        self.dropout = nn.Dropout(dropout)
        self.dense = glorot_(nn.Linear(input_dim, hidden_dim))
        self.attention = MultiDimToken2Token(hidden_dim, c, dropout, impl, chunk_size)
        self.fusion = FusionGate(hidden_dim, dropout=dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """x [B, L, input_dim], mask bool [B, L] -> u [B, L, hidden_dim], zeros at padding."""
        h = nn.functional.elu(self.dense(self.dropout(x)))
        allowed = direction_mask(x.shape[1], self.direction, x.device) & mask.unsqueeze(1)
        s = self.attention(h, allowed, self.direction)
        return zero_padding(self.fusion(s, h), mask)


class DiSAN(Encoder):
    """Untied forward and backward DiSA blocks, u = [u_fw; u_bw], then multi-dimensional
    source2token self-attention (Eq. 12-13) for the 2 * hidden_dim sentence vector (Sec. 4).

    ``attention_impl`` is ``chunked`` (the default: exact, in tiles of ``chunk_size`` queries,
    O(B·L·d) memory kept for backward; ``encoders.layers.tanh_attention``) or ``naive`` (the
    papers' computation, the same numbers within rounding).
    """

    def __init__(
        self,
        input_dim: int = 300,
        hidden_dim: int = 300,
        dropout: float = 0.25,
        directions: tuple[str, str] = ("forward", "backward"),
        c: float = 5.0,
        attention_impl: str = DEFAULT_IMPL,
        chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    ):
        super().__init__()
        self.input_dim, self.token_dim, self.output_dim = input_dim, 2 * hidden_dim, 2 * hidden_dim
        self.blocks = nn.ModuleList(
            DiSA(input_dim, hidden_dim, direction, c, dropout, attention_impl, chunk_size)
            for direction in directions
        )
        self.source2token = Source2Token(2 * hidden_dim, dropout=dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        tokens = torch.cat([block(x, mask) for block in self.blocks], dim=-1)
        return EncoderOutput(tokens=tokens, pooled=self.source2token(tokens, mask))


@register_encoder("disan", paper=PAPER, dropout_from=DISAN_SNLI, memory_by_shape=memory_by_shape)
def build_disan(
    input_dim: int = 300,
    hidden_dim: int = 300,
    dropout: float = 0.25,
    c: float = 5.0,
    attention_impl: str = DEFAULT_IMPL,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
) -> DiSAN:
    """DiSAN with forward and backward masks; dropout 0.25 = keep probability 0.75 (SNLI)."""
    directions = ("forward", "backward")
    return DiSAN(input_dim, hidden_dim, dropout, directions, c, attention_impl, chunk_size)


@register_encoder(
    "disan_nodir",
    paper=PAPER + ", Table 1 'DiSAN without directions'",
    dropout_from=DISAN_SNLI,
    memory_by_shape=memory_by_shape,
)
def build_disan_nodir(
    input_dim: int = 300,
    hidden_dim: int = 300,
    dropout: float = 0.25,
    c: float = 5.0,
    attention_impl: str = DEFAULT_IMPL,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
) -> DiSAN:
    """DiSAN with both direction masks replaced by diag-disabled masks M_diag (Sec. 5.1)."""
    directions = ("nodiag", "nodiag")
    return DiSAN(input_dim, hidden_dim, dropout, directions, c, attention_impl, chunk_size)
