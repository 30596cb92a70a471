"""Convolutional baselines of Bi-BloSAN (ICLR 2018, Sec. 4) and MTSA (NAACL 2019, Sec. 4).

``multi_cnn``: Kim (2014), widths 3/4/5 with ``hidden_dim`` (200) filters each, ReLU.
``hrchy_cnn``: Gehring et al. (2017) style stack of 3 width-5 convolutions with gated linear units
(Dauphin et al. 2016) and residual connections, ``hidden_dim`` (300) channels.

Padded positions of x are zeroed before every convolution, so the "same" zero padding at the
sentence end and the batch's padding look alike: a sentence's outputs do not depend on how much
padding follows it. Weights start Glorot-uniform and biases zero, as in the papers.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from encoders.base import Encoder, EncoderOutput
from encoders.dropout_settings import BI_BLOSAN_SNLI
from encoders.layers.init import glorot_
from encoders.layers.masking import zero_padding
from encoders.layers.source2token_encoder import Source2TokenEncoder
from encoders.registry import register_encoder


def same_conv(conv: nn.Conv1d, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Width-k convolution of x [B, L, C] with output length L; padded positions read as zeros.

    Left padding (k-1)//2 and right padding the rest, like the authors' code for even widths.
    """
    width = conv.kernel_size[0]
    left = (width - 1) // 2
    padded = F.pad(zero_padding(x, mask).transpose(1, 2), (left, width - 1 - left))
    return conv(padded).transpose(1, 2)


class MultiCNN(Encoder):
    """Kim (2014): c^k_i = ReLU(W^k x_{i-(k-1)//2 : i+k//2} + b^k) for k in widths, per token.

    tokens: [c^3; c^4; c^5] at every position ("same" padding); pooled: max over real tokens.
    Max-over-time (not source2token) is what makes Bi-BloSAN's 1.4m |θ| for Multi-CNN on SNLI.
    """

    def __init__(
        self,
        input_dim: int,
        filters: int,
        widths: tuple[int, ...] = (3, 4, 5),
        dropout: float = 0.25,
    ):
        super().__init__()
        self.input_dim = input_dim
        self.token_dim = self.output_dim = filters * len(widths)
        self.dropout = nn.Dropout(dropout)
        self.convs = nn.ModuleList(nn.Conv1d(input_dim, filters, width) for width in widths)
        glorot_(self)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        x = self.dropout(x)
        features = torch.cat([F.relu(same_conv(conv, x, mask)) for conv in self.convs], dim=-1)
        tokens = zero_padding(features, mask)
        # ReLU features are >= 0 and padded rows are 0, so the max over all positions is the max
        # over the real tokens, and a sentence without tokens gets zeros.
        return EncoderOutput(tokens=tokens, pooled=tokens.amax(dim=1))


class HierarchicalCNN(nn.Module):
    """h^l = GLU(conv_5(h^{l-1})) + h^{l-1} (no residual on the first layer, whose input width may
    differ); GLU([a; b]) = a * sigmoid(b) (Dauphin et al. 2016, Eq. 1). [B, L, D] -> [B, L, H].
    """

    def __init__(self, input_dim: int, channels: int, layers: int, width: int, dropout: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.convs = nn.ModuleList(
            nn.Conv1d(input_dim if index == 0 else channels, 2 * channels, width)
            for index in range(layers)
        )
        glorot_(self)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        hidden = x
        for index, conv in enumerate(self.convs):
            gated = F.glu(same_conv(conv, self.dropout(hidden) if index else hidden, mask), dim=-1)
            hidden = gated + hidden if index else gated
        return hidden


@register_encoder(
    "multi_cnn",
    paper="Kim 2014; baseline of Bi-BloSAN (ICLR 2018) Sec. 4",
    dropout_from=BI_BLOSAN_SNLI,
    memory_by_shape=True,
)
def build_multi_cnn(input_dim: int = 300, hidden_dim: int = 200, dropout: float = 0.25) -> Encoder:
    """600D multi-window CNN: ``hidden_dim`` filters for each of the widths 3, 4, 5; max-pooled."""
    return MultiCNN(input_dim, hidden_dim, dropout=dropout)


@register_encoder(
    "hrchy_cnn",
    paper="Gehring et al. 2017; baseline of Bi-BloSAN (ICLR 2018) Sec. 4",
    dropout_from=BI_BLOSAN_SNLI,
    memory_by_shape=True,
)
def build_hrchy_cnn(
    input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.25, layers: int = 3
) -> Encoder:
    """3-layer 300D width-5 GLU CNN with residuals + multi-dim source2token (ReLU), as the
    authors' ``sentence_encoding_models`` builds it for the Bi-BloSAN / MTSA tables.
    """
    fusion = HierarchicalCNN(input_dim, hidden_dim, layers, width=5, dropout=dropout)
    return Source2TokenEncoder(fusion, input_dim, hidden_dim, dropout, nn.ReLU)
