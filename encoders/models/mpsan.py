"""MPSAN: Multiple Positional Self-Attention Network (Dai, Li and Xu, AAAI 2020).

Positional Self-Attention Layer: k masked one-dimensional self-attention units, each with its own
h = ELU(W_h w + b_h) (Eq. 1) and f(h_i, h_j) = sigma((U h_i + V h_j + b) / c) (Eq. 6) plus a
positional mask M (Eq. 7-12); Position-Fusion Layer (Eq. 15-16); multi-dimensional source2token
attention on top. Masks are indexed [query j, key i]: entry (j, i) holds the paper's M_ij.

``variant="code"`` is the authors' released code where it departs from the paper: scores
5 * tanh(x / 5) instead of ELU(x / 5), faraway windows |i - j| < m instead of <= m, and ReLU
instead of ELU for h (Eq. 1) and the source2token MLP (docs/encoders.md, MPSAN).
"""

from __future__ import annotations

import re

import torch
from torch import nn

from encoders.base import Encoder, EncoderOutput
from encoders.dropout_settings import MPSAN_CLASSIFICATION
from encoders.layers.activation import activation_class
from encoders.layers.masking import masked_softmax, zero_padding
from encoders.layers.source2token import Source2Token
from encoders.registry import register_encoder

PAPER = "Dai, Li and Xu 2020, Multiple Positional Self-Attention Network for Text Classification"

# Table 2 of the paper (mask study); Model 0 has neither the positional nor the fusion layer.
MASK_STUDY: dict[str, tuple[str, ...]] = {
    "model1": ("bw", "fw"),
    "model2": ("bw+sd", "fw+sd"),
    "model3": ("fa2", "fa3"),
    "model4": ("fa2", "fa3", "bw", "fw"),
    "model5": ("fa2+sd", "fa3+sd", "bw+sd", "fw+sd"),
    "model6": ("fa2", "fa3", "bw+d", "fw+d"),
    "mpsan": ("fa2", "fa3", "bw+sd", "fw+sd"),
}
DEFAULT_MASKS = MASK_STUDY["mpsan"]
_SPEC = re.compile(r"^(bw|fw|fa(\d+))(\+sd|\+d)?$")
# what each variant sets: Eq. 6's score function, sigma of Eq. 1 and of the source2token MLP,
# and whether a faraway window fa<m> includes distance m (Eq. 8) or stops before it (the code)
VARIANTS: dict[str, dict[str, object]] = {
    "paper": {"score": "elu", "activation": "elu", "inclusive": True},
    "code": {"score": "scaled_tanh", "activation": "relu", "inclusive": False},
}


def positional_mask(
    spec: str, length: int, device: torch.device | None = None, inclusive: bool = True
) -> torch.Tensor:
    """float [L, L] mask M for ``spec``, entry (j, i) = M_ij (query j, key i), -inf = blocked.

    Base masks: ``bw`` (Eq. 9: 0 where i < j), ``fw`` (Eq. 10: 0 where i > j), ``fa<m>``
    (Eq. 8: 0 where |i - j| <= m and i != j; ``inclusive=False``: |i - j| < m, the authors'
    code). A suffix adds a penalty on top of the base mask:
    ``+d`` the Distance mask -|i - j| (Eq. 11), ``+sd`` the Scaled-Distance mask -log|i - j|
    (Eq. 12); both are 0 on the diagonal. Example: ``bw+sd`` is M_bw + M_sd (s_bw+sd in Eq. 16).
    Note MPSAN's ``bw`` (attend to earlier words) is DiSAN's forward mask, and vice versa.
    """
    match = _SPEC.match(spec)
    if match is None:
        raise ValueError(
            f"unknown MPSAN mask {spec!r}: expected bw, fw or fa<m> (m >= 1), optionally followed"
            " by +d (distance) or +sd (scaled distance), e.g. 'fa2' or 'bw+sd'"
        )
    base, window, penalty_name = match.group(1), match.group(2), match.group(3)
    idx = torch.arange(length, device=device)
    query, key = idx.unsqueeze(-1), idx.unsqueeze(0)
    distance = (query - key).abs().float()
    if base == "bw":
        allowed = key < query
    elif base == "fw":
        allowed = key > query
    else:
        if int(window) < 1:
            raise ValueError(f"MPSAN faraway mask {spec!r} needs m >= 1")
        inside = distance <= int(window) if inclusive else distance < int(window)
        allowed = inside & (key != query)
    if penalty_name == "+d":
        penalty = -distance
    elif penalty_name == "+sd":
        penalty = -torch.log(distance.clamp_min(1.0))  # log 1 = 0, so the diagonal is 0
    else:
        penalty = torch.zeros_like(distance)
    return penalty.masked_fill(~allowed, float("-inf"))


class PositionalSelfAttention(nn.Module):
    """k masked one-dimensional self-attention units (Eq. 1, 6, 7), computed side by side.

    Each unit has untied W_h, b_h, U, V, b (the parameter counts of the paper's Tables 3-5 need
    one dense layer per unit). ``score``: ``elu`` is Eq. 6 literally (sigma = ELU, the paper's
    activation everywhere); ``scaled_tanh`` is DiSAN's c * tanh(x / c). ``activation`` is sigma
    of Eq. 1; ``inclusive`` is the faraway window's edge (:func:`positional_mask`).
    Returns [B, k, L, H].
    """

    def __init__(
        self,
        input_dim: int,
        hidden_dim: int,
        masks: tuple[str, ...],
        c: float = 5.0,
        score: str = "elu",
        dropout: float = 0.0,
        activation: str = "elu",
        inclusive: bool = True,
    ):
        super().__init__()
        if not masks:
            raise ValueError("MPSAN needs at least one mask, e.g. masks=('fa2', 'fa3', 'bw+sd')")
        if score not in ("elu", "scaled_tanh"):
            raise ValueError(f"score must be 'elu' or 'scaled_tanh', not {score!r}")
        for spec in masks:
            positional_mask(spec, 1)  # fail early on a bad spec
        self.masks, self.c, self.score, self.hidden_dim = tuple(masks), c, score, hidden_dim
        self.sigma, self.inclusive = activation_class(activation)(), inclusive
        units = len(masks)
        self.dropout = nn.Dropout(dropout)
        self.dense = nn.Linear(input_dim, units * hidden_dim)  # W_h, b_h of every unit, stacked
        self.key_weight = nn.Parameter(torch.empty(units, hidden_dim))  # U (applied to h_i)
        self.query_weight = nn.Parameter(torch.empty(units, hidden_dim))  # V (applied to h_j)
        self.bias = nn.Parameter(torch.zeros(units))  # b
        with torch.no_grad():
            for unit in range(units):  # Glorot per unit, as if the units were separate layers
                nn.init.xavier_uniform_(self.dense.weight.view(units, hidden_dim, -1)[unit])
                nn.init.xavier_uniform_(self.key_weight[unit : unit + 1])
                nn.init.xavier_uniform_(self.query_weight[unit : unit + 1])
            nn.init.zeros_(self.dense.bias)

    def forward(self, w: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, length, _ = w.shape
        h = self.sigma(self.dense(self.dropout(w)))
        h = h.view(batch, length, len(self.masks), self.hidden_dim).transpose(1, 2)  # [B, k, L, H]
        scored = self.dropout(h)
        key = torch.einsum("bklh,kh->bkl", scored, self.key_weight)
        query = torch.einsum("bklh,kh->bkl", scored, self.query_weight) + self.bias.unsqueeze(-1)
        logits = (query.unsqueeze(-1) + key.unsqueeze(-2)) / self.c  # [B, k, L_q, L_k]
        elu = self.score == "elu"
        scores = nn.functional.elu(logits) if elu else self.c * torch.tanh(logits)
        positional = torch.stack(
            [positional_mask(s, length, w.device, self.inclusive) for s in self.masks]
        )
        allowed = positional.isfinite() & mask[:, None, None, :]
        probs = masked_softmax(scores + positional.to(scores.dtype), allowed, dim=-1)
        return torch.matmul(probs.to(h.dtype), h)


class PositionFusion(nn.Module):
    """Tokens-Position-Weight: a = softmax(W_P^T w + b_P) per feature over the k + 1 sources
    (Eq. 15), o = sum of a * [s_1; ...; s_k; w] (Eq. 16). When input_dim != hidden_dim, w is
    projected linearly to hidden_dim for the sum (the paper sets d_e = d_h and needs none)."""

    def __init__(self, input_dim: int, hidden_dim: int, sources: int, dropout: float = 0.0):
        super().__init__()
        self.sources, self.hidden_dim = sources, hidden_dim
        self.dropout = nn.Dropout(dropout)
        self.weight = nn.Linear(input_dim, sources * hidden_dim)
        self.project = nn.Linear(input_dim, hidden_dim) if input_dim != hidden_dim else None
        for linear in (self.weight, self.project):
            if linear is not None:
                nn.init.xavier_uniform_(linear.weight)
                nn.init.zeros_(linear.bias)

    def forward(self, attended: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        """attended [B, k, L, H], w [B, L, input_dim] -> o [B, L, H]."""
        batch, length, _ = w.shape
        logits = self.weight(self.dropout(w)).view(batch, length, self.sources, self.hidden_dim)
        weights = torch.softmax(logits, dim=2)
        own = w if self.project is None else self.project(w)
        stacked = torch.cat([attended.transpose(1, 2), own.unsqueeze(2).to(attended.dtype)], 2)
        return (weights * stacked).sum(dim=2)


class MPSAN(Encoder):
    """Positional Self-Attention Layer, Position-Fusion Layer, then multi-dimensional
    source2token attention (DiSAN Eq. 12-13) for the hidden_dim sentence vector.

    ``variant`` (``paper`` or ``code``, :data:`VARIANTS`) sets the score function, the
    activation and the faraway window's edge; an explicit ``score`` overrides the variant's.
    """

    def __init__(
        self,
        input_dim: int = 300,
        hidden_dim: int = 300,
        dropout: float = 0.3,
        masks: tuple[str, ...] = DEFAULT_MASKS,
        c: float = 5.0,
        score: str | None = None,
        variant: str = "paper",
    ):
        super().__init__()
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {sorted(VARIANTS)}, not {variant!r}")
        chosen = VARIANTS[variant]
        activation = str(chosen["activation"])
        self.input_dim, self.token_dim, self.output_dim = input_dim, hidden_dim, hidden_dim
        self.attention = PositionalSelfAttention(
            input_dim,
            hidden_dim,
            masks,
            c,
            score or str(chosen["score"]),
            dropout,
            activation=activation,
            inclusive=bool(chosen["inclusive"]),
        )
        self.fusion = PositionFusion(input_dim, hidden_dim, len(masks) + 1, dropout)
        self.source2token = Source2Token(
            hidden_dim, activation=activation_class(activation), dropout=dropout
        )

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        tokens = zero_padding(self.fusion(self.attention(x, mask), x), mask)
        return EncoderOutput(tokens=tokens, pooled=self.source2token(tokens, mask))


@register_encoder("mpsan", paper=PAPER, dropout_from=MPSAN_CLASSIFICATION, memory_by_shape=True)
def build_mpsan(
    input_dim: int = 300,
    hidden_dim: int = 300,
    dropout: float = 0.3,
    masks: tuple[str, ...] = DEFAULT_MASKS,
    c: float = 5.0,
    score: str | None = None,
    variant: str = "paper",
) -> MPSAN:
    """MPSAN; ``masks`` picks the attention units (see :data:`MASK_STUDY` for Table 2);
    ``variant="code"`` is the authors' code (module docstring).

    dropout 0.3 = the paper's "dropout-ratio 0.7" read as a keep probability, as in DiSAN.
    """
    return MPSAN(input_dim, hidden_dim, dropout, tuple(masks), c, score, variant)
