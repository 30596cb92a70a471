"""Multi-head attention baseline (Vaswani et al. 2017) as used in DiSAN / Bi-BloSAN / MTSA (Sec. 4).

"600D multi-head attention (8 heads, each has 75 hidden units). The positional encoding method used
in Vaswani et al. (2017) is applied to the input sequence" (Bi-BloSAN Sec. 4), with a
multi-dimensional source2token layer on top for the sentence vector (DiSAN Sec. 5.1 "Multi-head
with s2t self-attention"; MTSA Sec. 4).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from encoders.base import Encoder, EncoderOutput
from encoders.dropout_settings import BI_BLOSAN_SNLI
from encoders.layers.masking import zero_padding
from encoders.layers.source2token import Source2Token
from encoders.registry import register_encoder

PAPER = (
    "Vaswani et al. 2017, Attention Is All You Need (NeurIPS); baseline of Shen et al. 2018/2019"
)


def sinusoidal_positions(length: int, dim: int, device: torch.device | None = None) -> torch.Tensor:
    """[L, dim]: PE[pos, 2i] = sin(pos / 10000^(2i/dim)), PE[pos, 2i+1] = cos(same angle)."""
    position = torch.arange(length, dtype=torch.float32, device=device).unsqueeze(1)
    pair = torch.arange(0, dim, 2, dtype=torch.float32, device=device)
    angle = position / torch.pow(10000.0, pair / dim)  # [L, ceil(dim / 2)]
    encoding = torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1).flatten(1)
    return encoding[:, :dim]


class MultiHead(Encoder):
    """x + PE -> head_c = softmax(Q_c K_c^T / sqrt(d)) V_c with Q/K/V_c = W^{Q/K/V}_c (x + PE),
    concat over heads -> tokens; multi-dimensional source2token on top -> sentence vector.
    The model width is 2 * hidden_dim (600 = 8 heads x 75 at the default hidden 300).

    Keys are masked to real tokens (no positional mask; a token may attend to itself).
    ``output_projection=True`` adds Vaswani's W^O over the concatenated heads; the authors'
    baseline code (and its 2.0m parameters in Table 1 of Bi-BloSAN / MTSA) has none, so the
    default leaves it out. ``dropout`` acts on the input of the projections and of the
    source2token score path; ``attn_dropout`` on the attention probabilities.
    """

    def __init__(
        self,
        input_dim: int = 300,
        hidden_dim: int = 300,
        dropout: float = 0.25,
        heads: int = 8,
        attn_dropout: float = 0.25,
        output_projection: bool = False,
    ):
        super().__init__()
        width = 2 * hidden_dim  # "600D" at hidden 300, like the bidirectional baselines
        if width % heads:
            raise ValueError(
                f"model width {width} (2 x hidden_dim) must be divisible by {heads} heads"
            )
        self.input_dim, self.token_dim, self.output_dim = input_dim, width, width
        self.heads, self.attn_dropout = heads, attn_dropout
        self.dropout = nn.Dropout(dropout)
        self.qkv = nn.Linear(input_dim, 3 * width, bias=False)
        for chunk in self.qkv.weight.split(width // heads, dim=0):
            nn.init.xavier_uniform_(chunk)  # Glorot per head and projection
        self.out = nn.Linear(width, width, bias=False) if output_projection else None
        if self.out is not None:
            nn.init.xavier_uniform_(self.out.weight)
        self.source2token = Source2Token(width, dropout=dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        batch, length, _ = x.shape
        positions = sinusoidal_positions(length, self.input_dim, x.device).to(x.dtype)
        inputs = zero_padding(x + positions, mask)
        projected = self.qkv(self.dropout(inputs)).view(batch, length, 3, self.heads, -1)
        q, k, v = projected.permute(2, 0, 3, 1, 4).unbind(0)  # [B, h, L, d] each
        # A sentence without real tokens attends over its (zeroed) padding instead of nothing:
        # some torch versions / kernels give NaN for all-masked rows. Its tokens are zeroed
        # below and its pooled vector is zero (Source2Token), so the choice is invisible.
        keys = mask | ~mask.any(dim=1, keepdim=True)
        attended = F.scaled_dot_product_attention(
            q,
            k,
            v,
            attn_mask=keys[:, None, None, :],
            dropout_p=self.attn_dropout if self.training else 0.0,
        )
        concat = attended.transpose(1, 2).flatten(2)  # [B, L, hidden]
        if self.out is not None:
            concat = self.out(concat)
        tokens = zero_padding(concat, mask)
        return EncoderOutput(tokens=tokens, pooled=self.source2token(tokens, mask))


@register_encoder("multi_head", paper=PAPER, dropout_from=BI_BLOSAN_SNLI, memory_by_shape=True)
def build_multi_head(
    input_dim: int = 300,
    hidden_dim: int = 300,
    dropout: float = 0.25,
    heads: int = 8,
    attn_dropout: float = 0.25,
    output_projection: bool = False,
) -> MultiHead:
    """600D multi-head attention, 8 heads x 75, sinusoidal positions, source2token on top;
    dropout 0.25 = keep probability 0.75 (Bi-BloSAN SNLI setup, also on attention probabilities
    as in the authors' baseline code)."""
    return MultiHead(input_dim, hidden_dim, dropout, heads, attn_dropout, output_projection)
