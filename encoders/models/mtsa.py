"""MTSA: Multi-mask Tensorized Self-Attention (Shen et al., NAACL 2019, Sec. 3, Algorithm 1).

Per head c (d = width / heads, width = 2 * hidden_dim, e.g. 600 = 2 heads x 300):
    q, k, v = W_q x, W_k x, W_v x                                     (Eq. 7)
    R_ji = <k_i, q_j> / sqrt(d)              token2token, [L_query, L_key]   (Eq. 8)
    S_il = [W2 sigma(W1 k_i + b1) + b2]_l    multi-dim source2token, [L, d] (Eq. 9)
    f_jil = sigma_t(R_ji) + S_il + M_ji,  s_jl = sum_i softmax_i(f_jil) v_il   (Eq. 10-12)
and s = [U_1; ...; U_h] with each head fused with its values by the authors' gate,
    G = sigmoid(W_g [v; H] + b_g),  U = G * v + (1 - G) * H
(their ``use_fusion_gate=True``, in place of Eq. 13's W_o: under the strict forward and backward
masks a one-token sentence has nothing to attend to, H = 0, and W_o would encode every such
sentence as the zero vector). Half the heads use the forward mask, half the backward one.
sigma, like the sentence-level source2token's, is ReLU: "the unspecified activation functions for
all fully-connected layers ... are set to relu" (Appendix B); ``activation="elu"`` is the
authors' SNLI setting ("the activation function for fully-connected layer is set to elu").

``attention_impl="tensor"`` evaluates Eq. 10-12 literally (a [B, h, L, L, d] score tensor).
``attention_impl="fast"`` is Algorithm 1: with E_R = exp(sigma_t(R) + M) and E_S = exp(S),
    H = (E_R (v * E_S)) / (E_R E_S)                                  (Appendix A.2)
two [L, L] x [L, d] matrix products per head. It is exact (to float rounding) for every input:
* E_R = exp(sigma_t(R_ji) - c_j) with c_j the maximum over the keys query j may attend to. The
  factor exp(-c_j) multiplies every term of row j of both E_R (v * E_S) and E_R E_S, so it
  cancels in the ratio; sigma_t = identity can no longer overflow.
* E_S = exp(S_il - c_l) with c_l the maximum over the sentence's real tokens: exp(-c_l) multiplies
  column l of numerator and denominator alike and cancels. One shift per feature is all a matrix
  product allows, and it is only safe while a feature's scores spread by at most
  S2T_SPREAD_LIMIT = 60 within the sentence: then every E_S >= e^-60, so a query's denominator is
  at least e^-60 (its best key has E_R = 1) and neither the ratio nor its gradient can underflow
  or overflow in float32 / bf16. A sentence whose scores spread further (a softmax weight ratio
  beyond 1e26 inside one sentence) is evaluated with the tensor form, which shifts by the maximum
  over each query's visible keys; the other sentences of the batch keep the matrix products.
* Disallowed pairs (positional mask, padded keys) are exactly zero; a query with nothing to attend
  to (first token under the forward mask, fully padded rows) has denominator 0 and gets output 0.
* The ratio is taken in at least float32 with that guard, so autocast (bf16) outputs stay finite
  and float64 inputs keep float64 (gradcheck).
* fp16 inputs (autocast) are computed in float32 with autocast off and H returned in fp16: fp16's
  smallest normal is e^-9.7 (subnormal to e^-16.6), so E_S underflowed within the spread limit,
  a denominator fell to a subnormal and g / denominator overflowed (NaN gradients at the default
  width, inputs N(0, 10^2)), or to 0 and a query that attends got H = 0. q, k and
  R = q k^T / sqrt(d) (Eq. 8) stay fp16: where R reaches thousands fp16 moves it by units, and a
  near tie of two keys' logits f_jil (Eq. 10) makes that another gradient (docs/encoders.md,
  "Half precision": the fp16 claim's logit bound).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn
from torch.nn import functional as F

from encoders.base import Encoder, EncoderOutput
from encoders.dropout_settings import MTSA_SNLI
from encoders.layers.activation import activation_class
from encoders.layers.masking import direction_mask, zero_padding
from encoders.layers.source2token import Source2Token
from encoders.layers.tanh_attention import autocast_off
from encoders.registry import register_encoder

PAPER = (
    "Shen et al. 2019, Tensorized Self-Attention: Efficiently Modeling Pairwise and Global "
    "Dependencies Together (NAACL)"
)

T2T_SCALES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "log_sigmoid": F.logsigmoid,  # default (Appendix B)
    "identity": lambda scores: scores,  # used for SRL (Appendix B)
}
IMPLS = ("fast", "tensor")
RENAMED = {"impl": "attention_impl"}  # the name DiSAN and Bi-BloSAN give their attention option
S2T_SPREAD_LIMIT = 60.0  # widest source2token spread the fast form takes (module docstring)


def _source2token_exp(scores: torch.Tensor, padded: torch.Tensor) -> torch.Tensor:
    """E_S = exp(S - max over real tokens) per feature, exactly 0 at padding."""
    filled = scores.masked_fill(padded, torch.finfo(scores.dtype).min)
    shifted = filled - filled.amax(dim=-2, keepdim=True).detach()
    return torch.exp(shifted).masked_fill(padded, 0.0)


def _wide_sentences(scores: torch.Tensor, padded: torch.Tensor) -> torch.Tensor:
    """bool [B]: sentences where some head's feature spreads by more than S2T_SPREAD_LIMIT."""
    high = scores.detach().masked_fill(padded, float("-inf")).amax(dim=-2)  # [h, B, d]
    low = scores.detach().masked_fill(padded, float("inf")).amin(dim=-2)
    return ((high - low) > S2T_SPREAD_LIMIT).any(dim=2).any(dim=0)  # padded rows: -inf > 60 False


def memory_by_shape(model: nn.Module, device: torch.device) -> bool:
    """Whether ``model``'s MTSA blocks take memory by their inputs' shape alone: the tensor form
    does, and the fast form without source2token; with it a batch whose spread passes
    S2T_SPREAD_LIMIT is split and its wide sentences take the tensor form's [h, B', L, L, d]."""
    return all(
        block.impl == "tensor" or not block.source2token
        for block in model.modules()
        if isinstance(block, MultiMaskTensorizedSelfAttention)
    )


def _safe_ratio(numerator: torch.Tensor, denominator: torch.Tensor) -> torch.Tensor:
    """numerator / denominator in at least float32 (bf16/fp16 inputs are widened, float64 stays
    float64); 0 where the denominator is 0 (nothing to attend to)."""
    work = torch.promote_types(numerator.dtype, torch.float32)
    denominator = denominator.to(work)
    safe = denominator.masked_fill(denominator == 0, 1.0)
    return (numerator.to(work) / safe).to(numerator.dtype)


def _fast_heads(
    v: torch.Tensor,
    t2t: torch.Tensor | None,
    s2t: torch.Tensor | None,
    blocked: torch.Tensor,
    padded: torch.Tensor,
    drop_r: torch.Tensor | None,
    drop_s: torch.Tensor | None,
) -> torch.Tensor:
    """Algorithm 1, steps 5-7: H = (E_R (v * E_S)) / (E_R E_S), with the max shifts described in
    the module docstring, in the inputs' dtype; fp16 computed in float32 with autocast off
    (module docstring), H returned in fp16."""
    if v.dtype == torch.float16:
        v, t2t, s2t, drop_r, drop_s = (
            None if t is None else t.float() for t in (v, t2t, s2t, drop_r, drop_s)
        )
        with autocast_off(v.device.type):
            return _fast_heads(v, t2t, s2t, blocked, padded, drop_r, drop_s).to(torch.float16)
    if t2t is None:
        e_r, empty = (~blocked).to(v.dtype), None
    else:  # blocked entries: exp(finfo.min - peak) == 0, except in rows with nothing allowed
        filled = t2t.masked_fill(blocked, torch.finfo(t2t.dtype).min)
        peak = filled.amax(dim=-1, keepdim=True).detach()
        e_r, empty = torch.exp(filled - peak), peak == torch.finfo(t2t.dtype).min
    e_s = (~padded).to(v.dtype) if s2t is None else _source2token_exp(s2t, padded)
    e_x = v * e_s if drop_s is None else v * e_s * drop_s
    numerator = torch.matmul(e_r if drop_r is None else e_r * drop_r, e_x)
    heads = _safe_ratio(numerator, torch.matmul(e_r, e_s))
    return heads if empty is None else heads.masked_fill(empty, 0.0)


class MultiMaskTensorizedSelfAttention(nn.Module):
    """MTSA block (Algorithm 1, fusion gate): x [B, L, input_dim] -> s [B, L, width].

    ``directions`` holds one :func:`direction_mask` name per head. ``token2token=False`` drops
    sigma_t(R) (and W_q, W_k: the source2token scores are then computed from v, as in the authors'
    code); ``source2token=False`` drops S. ``dropout`` acts on the input of the q/k/v projection
    and of the fusion gate; ``attn_dropout`` is the attention dropout of Appendix A.3 (E_X and E_R
    of the dividend each dropped with keep probability sqrt(1 - attn_dropout), the divisor
    undropped).
    """

    def __init__(
        self,
        input_dim: int,
        width: int,
        directions: tuple[str, ...],
        token2token: bool = True,
        source2token: bool = True,
        t2t_scale: str = "log_sigmoid",
        attention_impl: str = "fast",
        dropout: float = 0.0,
        attn_dropout: float = 0.0,
        activation: str = "relu",
    ):
        super().__init__()
        heads = len(directions)
        if heads == 0 or width % heads:
            raise ValueError(
                f"model width {width} (2 x hidden_dim) must be divisible by {heads} heads"
            )
        if t2t_scale not in T2T_SCALES:
            raise ValueError(f"t2t_scale must be one of {sorted(T2T_SCALES)}, not {t2t_scale!r}")
        if attention_impl not in IMPLS:
            raise ValueError(f"attention_impl must be one of {IMPLS}, not {attention_impl!r}")
        for direction in directions:
            direction_mask(1, direction)  # fail early on an unknown mask name
        self.directions, self.heads, self.head_dim = tuple(directions), heads, width // heads
        self.token2token, self.source2token = token2token, source2token
        self.t2t_scale, self.impl, self.attn_dropout = t2t_scale, attention_impl, attn_dropout
        self.dropout = nn.Dropout(dropout)
        self.sigma = activation_class(activation)()  # of Eq. 9's source2token MLP
        # rows: v, then q and k of every head (one fused projection, split per head)
        self.qkv = nn.Linear(input_dim, (3 if token2token else 1) * width, bias=False)
        if source2token:  # per-head W1, b1, W2, b2 of Eq. 9 (d_a = d_h)
            shape = (heads, self.head_dim, self.head_dim)
            self.s2t_w1 = nn.Parameter(torch.empty(shape))
            self.s2t_b1 = nn.Parameter(torch.zeros(heads, 1, self.head_dim))
            self.s2t_w2 = nn.Parameter(torch.empty(shape))
            self.s2t_b2 = nn.Parameter(torch.zeros(heads, 1, self.head_dim))
        # per-head fusion gate W_g [2d -> d], b_g (module docstring)
        self.gate_weight = nn.Parameter(torch.empty(heads, 2 * self.head_dim, self.head_dim))
        self.gate_bias = nn.Parameter(torch.zeros(heads, 1, self.head_dim))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot-uniform weights per head, zero biases (Appendix B)."""
        for chunk in self.qkv.weight.split(self.head_dim, dim=0):
            nn.init.xavier_uniform_(chunk)
        if self.source2token:
            for weight in (*self.s2t_w1, *self.s2t_w2):
                nn.init.xavier_uniform_(weight)
        for weight in self.gate_weight:
            nn.init.xavier_uniform_(weight)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """x [B, L, input_dim], mask bool [B, L] -> s [B, L, width], zeros at padding."""
        v, heads = self._attend(x, mask)  # [h, B, L, d] each
        gate_input = self.dropout(torch.cat([v, heads], dim=-1)).flatten(1, 2)
        gate = torch.sigmoid(torch.baddbmm(self.gate_bias, gate_input, self.gate_weight))
        fused = heads + gate.view_as(v) * (v - heads)  # G * v + (1 - G) * H
        return zero_padding(fused.permute(1, 2, 0, 3).flatten(2), mask)

    def head_outputs(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """H_c of every head before the fusion gate: [B, h, L, d]."""
        return self._attend(x, mask)[1].transpose(0, 1)

    def _attend(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Steps 2-7 of Algorithm 1 for all heads at once: (v, H), each laid out [h, B, L, d]."""
        batch, length, _ = x.shape
        projected = self.qkv(self.dropout(x)).view(batch, length, -1, self.heads, self.head_dim)
        projected = projected.permute(2, 3, 0, 1, 4)  # [1 or 3, h, B, L, d]
        v = projected[0]
        positional = torch.stack([direction_mask(length, d, x.device) for d in self.directions])
        blocked = ~(positional[:, None] & mask[None, :, None, :])  # [h, B, L_query, L_key]
        t2t = None
        if self.token2token:
            q, k = projected[1], projected[2]
            scores = torch.matmul(q / math.sqrt(self.head_dim), k.transpose(-1, -2))
            t2t = T2T_SCALES[self.t2t_scale](scores)
        s2t = None
        if self.source2token:  # Eq. 9 per head as one batched product over heads
            source = (projected[2] if self.token2token else v).reshape(
                self.heads, -1, self.head_dim
            )
            hidden = self.sigma(torch.baddbmm(self.s2t_b1, source, self.s2t_w1))
            s2t = torch.baddbmm(self.s2t_b2, hidden, self.s2t_w2).view_as(v)
        drop_r, drop_s = self._attention_dropout_masks(v, length)
        if self.impl == "tensor":
            return v, self._tensor(v, t2t, s2t, blocked, drop_r, drop_s)
        padded = ~mask[None, :, :, None].expand_as(v)  # [h, B, L, d]
        wide = None if s2t is None else _wide_sentences(s2t, padded)
        # Meta tensors (memory prediction) carry no values to check: they take the fast form,
        # as every sentence within the spread limit does.
        if wide is None or wide.device.type == "meta" or not bool(wide.any()):
            return v, _fast_heads(v, t2t, s2t, blocked, padded, drop_r, drop_s)
        return v, self._split_by_spread(v, t2t, s2t, blocked, padded, drop_r, drop_s, wide=wide)

    def _split_by_spread(self, *per_head: torch.Tensor | None, wide: torch.Tensor) -> torch.Tensor:
        """Fast form for the sentences within S2T_SPREAD_LIMIT, tensor form for the others.

        ``per_head`` are v, t2t, s2t, blocked, padded, drop_r, drop_s (batch on dim 1, or None).
        """
        narrow_rows, wide_rows = (~wide).nonzero()[:, 0], wide.nonzero()[:, 0]

        def rows(index: torch.Tensor) -> list[torch.Tensor | None]:
            return [None if t is None else t.index_select(1, index) for t in per_head]

        v, t2t, s2t, blocked, padded, drop_r, drop_s = rows(narrow_rows)
        narrow = _fast_heads(v, t2t, s2t, blocked, padded, drop_r, drop_s)
        v, t2t, s2t, blocked, _, drop_r, drop_s = rows(wide_rows)
        exact = self._tensor(v, t2t, s2t, blocked, drop_r, drop_s)
        order = torch.cat([narrow_rows, wide_rows]).argsort()
        return torch.cat([narrow, exact], dim=1).index_select(1, order)

    def _attention_dropout_masks(
        self, v: torch.Tensor, length: int
    ) -> tuple[torch.Tensor | None, torch.Tensor | None]:
        """Scaled keep masks for E_R [h, B, L, L] and E_S [h, B, L, d] (Appendix A.3), or None."""
        if not self.training or self.attn_dropout == 0.0:
            return None, None
        drop = 1.0 - math.sqrt(1.0 - self.attn_dropout)
        shape_r = (*v.shape[:2], length, length)
        ones_r = torch.ones(shape_r, dtype=v.dtype, device=v.device)
        return F.dropout(ones_r, drop), F.dropout(torch.ones_like(v), drop)

    @staticmethod
    def _tensor(
        v: torch.Tensor,
        t2t: torch.Tensor | None,
        s2t: torch.Tensor | None,
        blocked: torch.Tensor,
        drop_r: torch.Tensor | None,
        drop_s: torch.Tensor | None,
    ) -> torch.Tensor:
        """Eq. 10-12 literally: softmax over keys of an [h, B, L_query, L_key, d] score tensor."""
        heads, batch, length, dim = v.shape
        zeros = v.new_zeros(())
        t2t_term = zeros.expand(heads, batch, length, length, 1) if t2t is None else t2t[..., None]
        s2t_term = zeros.expand(heads, batch, 1, length, dim) if s2t is None else s2t[:, :, None]
        logits = (t2t_term + s2t_term).masked_fill(blocked[..., None], float("-inf"))
        peak = logits.amax(dim=-2, keepdim=True).detach().clamp_min(torch.finfo(v.dtype).min)
        weights = torch.exp(logits - peak)  # 0 where disallowed
        probs = weights / weights.sum(dim=-2, keepdim=True).clamp_min(torch.finfo(v.dtype).tiny)
        if drop_r is not None and drop_s is not None:
            probs = probs * drop_r[..., None] * drop_s[:, :, None]
        return (probs * v[:, :, None]).sum(dim=-2)


class MTSA(Encoder):
    """MTSA context fusion of width 2 * hidden_dim split into ``heads`` heads, then
    multi-dimensional source2token attention for the sentence vector (Sec. 4: "a multi-dim
    source2token self-attention is applied on the top")."""

    def __init__(
        self,
        input_dim: int = 300,
        hidden_dim: int = 300,
        dropout: float = 0.35,
        heads: int = 2,
        masks: bool = True,
        token2token: bool = True,
        source2token: bool = True,
        t2t_scale: str = "log_sigmoid",
        attention_impl: str = "fast",
        attn_dropout: float = 0.0,
        activation: str = "relu",
    ):
        super().__init__()
        if masks and heads % 2:
            raise ValueError(f"heads ({heads}) must be even: half forward, half backward masks")
        half = heads // 2
        directions = ("forward",) * half + ("backward",) * half if masks else ("nodiag",) * heads
        width = 2 * hidden_dim  # "600D" at hidden 300, like the bidirectional models
        self.input_dim, self.token_dim, self.output_dim = input_dim, width, width
        self.attention = MultiMaskTensorizedSelfAttention(
            input_dim,
            width,
            directions,
            token2token=token2token,
            source2token=source2token,
            t2t_scale=t2t_scale,
            attention_impl=attention_impl,
            dropout=dropout,
            attn_dropout=attn_dropout,
            activation=activation,
        )
        self.source2token = Source2Token(
            width, activation=activation_class(activation), dropout=dropout
        )

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        tokens = self.attention(x, mask)
        return EncoderOutput(tokens=tokens, pooled=self.source2token(tokens, mask))


def _register(name: str, paper: str, doc: str, **parts: bool) -> Callable[..., MTSA]:
    """Register MTSA, or one of its Table 3 ablations (``parts`` off), under ``name``: the
    authors' configuration by default (Appendix B)."""

    def build(
        input_dim: int = 300,
        hidden_dim: int = 300,
        dropout: float = 0.35,
        heads: int = 2,
        t2t_scale: str = "log_sigmoid",
        attention_impl: str = "fast",
        attn_dropout: float = 0.0,
        activation: str = "relu",
    ) -> MTSA:
        return MTSA(
            input_dim,
            hidden_dim,
            dropout,
            heads,
            t2t_scale=t2t_scale,
            attention_impl=attention_impl,
            attn_dropout=attn_dropout,
            activation=activation,
            **parts,
        )

    build.__name__ = build.__qualname__ = f"build_{name}"
    build.__doc__ = doc
    return register_encoder(
        name,
        paper=paper,
        dropout_from=MTSA_SNLI,
        renamed=RENAMED,
        memory_by_shape=memory_by_shape,
    )(build)


build_mtsa = _register(
    "mtsa",
    PAPER,
    """MTSA at the authors' configuration (Appendix B): 2 heads x 300 (forward + backward), keep
    probability 0.65 and no attention dropout (SNLI), sigma_t = log(sigmoid), sigma = ReLU
    (``activation="elu"`` for their SNLI runs).""",
)
build_mtsa_no_masks = _register(
    "mtsa_no_masks",
    PAPER + ", Table 3 'w/o fw&bw masks'",
    "MTSA with the forward/backward masks replaced by diag-disabled masks on every head.",
    masks=False,
)
build_mtsa_no_t2t = _register(
    "mtsa_no_t2t",
    PAPER + ", Table 3 'w/o token2token'",
    "MTSA without the token2token term sigma_t(R) (no W_q, W_k; masks kept).",
    token2token=False,
)
build_mtsa_no_s2t = _register(
    "mtsa_no_s2t",
    PAPER + ", Table 3 'w/o source2token'",
    "MTSA without the source2token term S (no W1, W2): masked sigma_t-scaled dot-product heads.",
    source2token=False,
)
