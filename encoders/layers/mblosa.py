"""Masked block self-attention, mBloSA (Bi-BloSAN, ICLR 2018, Sec. 2.4 and 3.1).

Tensors are kept in block layout [B, m, r, d] (m blocks of length r) so that the intra-block
scores are [B, m, r, r, d] and the inter-block scores [B, m, m, d]: nothing is n x n x d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from encoders.layers.init import glorot_
from encoders.layers.masking import direction_mask
from encoders.layers.source2token import Source2Token
from encoders.layers.tanh_attention import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_IMPL,
    check_impl,
    tanh_attention,
)


class MaskedSelfAttention(nn.Module):
    """Masked multi-dimensional token2token self-attention g_m(x, M) (Eq. 9).

    f(x_i, x_j) = c * tanh((W1 x_i + W2 x_j + b1) / c) + M_ij, with x_j the query and x_i the key;
    softmax over keys i per feature; s_j = sum_i P^j_i * x_i. ``allowed[..., j, i]`` is the mask
    (True where M_ij = 0). A query with no allowed key gets the zero vector. The logits lie in
    [-c, c], so the softmax subtracts c instead of a maximum (exact, see ``tanh_attention``).
    ``impl`` / ``chunk_size``: naive or exact query tiles (``tanh_attention``).
    """

    def __init__(
        self,
        dim: int,
        scale: float = 5.0,
        impl: str = DEFAULT_IMPL,
        chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    ):
        super().__init__()
        check_impl(impl, chunk_size)
        self.key = nn.Linear(dim, dim, bias=False)  # W^(1)
        self.query = nn.Linear(dim, dim)  # W^(2) and b^(1)
        self.scale = scale
        self.impl, self.chunk_size = impl, chunk_size
        glorot_(self)  # W^(1), W^(2) Glorot-uniform, b^(1) zero (Sec. 4.1)

    def forward(
        self, x: torch.Tensor, allowed: torch.Tensor, direction: str = "all"
    ) -> torch.Tensor:
        """x [..., L, d], allowed bool [..., L_query, L_key] -> [..., L, d], attending the keys
        that ``allowed`` and ``direction`` (a :func:`direction_mask` name) both allow."""
        *lead, length, dim = x.shape
        flat = x.reshape(-1, length, dim)
        keys, queries = self.key(flat) / self.scale, self.query(flat) / self.scale
        allowed = allowed.expand(*lead, length, length).reshape(-1, length, length)
        s = tanh_attention(
            queries, keys, flat, allowed, self.scale, self.impl, self.chunk_size, direction
        )
        return s.reshape(*lead, length, dim)


@dataclass(frozen=True)
class BlockParts:
    """Intermediate mBloSA results in block layout (for inspection and tests).

    h: [B, m, r, d] intra-block output (Eq. 11); v, o, e: [B, m, d] block vectors (Eq. 12),
    inter-block attention output (Eq. 13) and gated global context (Eq. 15), or None when the
    global branch is disabled; u: [B, m, r, d] mBloSA output (Eq. 18).
    """

    h: torch.Tensor
    v: torch.Tensor | None
    o: torch.Tensor | None
    e: torch.Tensor | None
    u: torch.Tensor


class MaskedBlockSelfAttention(nn.Module):
    """mBloSA (Eq. 11-18) with a forward or backward mask (Eq. 10).

    ``use_local=False`` drops h from the fusion gate (Table 3 "w/o Local"; the intra-block
    attention still builds the block vectors v, Eq. 12). ``use_global=False`` drops E and with it
    the per-block source2token, the inter-block attention and its gate (Table 3 "w/o Global").
    The fusion gate W^(f)[x; h; E] is computed as W_xh [x; h] + W_E E with W_E E evaluated once
    per block and broadcast to the block's tokens (Eq. 16-17; same parameters, no duplication).
    ``impl`` / ``chunk_size`` go to both multi-dimensional attentions (intra- and inter-block).
    """

    def __init__(
        self,
        dim: int,
        direction: str,
        use_local: bool = True,
        use_global: bool = True,
        activation: type[nn.Module] = nn.ReLU,
        impl: str = DEFAULT_IMPL,
        chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    ):
        super().__init__()
        if direction not in ("forward", "backward"):
            raise ValueError(f"mBloSA direction must be forward or backward, not {direction!r}")
        if not (use_local or use_global):
            raise ValueError("mBloSA needs the local or the global context (or both)")
        self.direction = direction
        self.use_local = use_local
        self.use_global = use_global
        self.intra = MaskedSelfAttention(dim, impl=impl, chunk_size=chunk_size)
        if use_global:
            self.block_s2t = Source2Token(dim, activation=activation)
            self.inter = MaskedSelfAttention(dim, impl=impl, chunk_size=chunk_size)
            self.inter_gate = nn.Linear(2 * dim, dim)  # W^(g1), W^(g2), b^(g) (Eq. 14)
            self.fusion_global = nn.Linear(dim, 2 * dim, bias=False)  # E-columns of W^(f1), W^(f2)
        token_inputs = 2 * dim if use_local else dim
        self.fusion_tokens = nn.Linear(token_inputs, 2 * dim)  # [x; h]-columns, b^(f1), b^(f2)
        self.activation = activation()
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Glorot-uniform per matrix of the paper, zero biases (Sec. 4.1): W^(g1) and W^(g2) of
        Eq. 14 each d x d; W^(f1) and W^(f2) of Eq. 16-17 each d x |[x; h; E]|, whose columns are
        split between ``fusion_tokens`` and ``fusion_global``. The intra-/inter-block attention
        and the block source2token initialise themselves."""
        dim = self.fusion_tokens.out_features // 2
        token_inputs = self.fusion_tokens.in_features
        with torch.no_grad():
            nn.init.zeros_(self.fusion_tokens.bias)
            for half in range(2):  # rows of W^(f1) (candidate F), then of W^(f2) (gate G)
                rows = slice(half * dim, (half + 1) * dim)
                columns = token_inputs + (dim if self.use_global else 0)
                matrix = nn.init.xavier_uniform_(torch.empty(dim, columns))
                self.fusion_tokens.weight[rows] = matrix[:, :token_inputs]
                if self.use_global:
                    self.fusion_global.weight[rows] = matrix[:, token_inputs:]
            if self.use_global:
                for matrix in self.inter_gate.weight.split(dim, dim=1):  # W^(g1), W^(g2)
                    nn.init.xavier_uniform_(matrix)
                nn.init.zeros_(self.inter_gate.bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, block_len: int) -> torch.Tensor:
        """x [B, n, d], mask bool [B, n] -> u [B, n, d], zeros at padding."""
        n = x.shape[1]
        u = self.parts(x, mask, block_len).u
        return u.reshape(x.shape[0], -1, x.shape[-1])[:, :n]

    def fusion_tokens_of(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """W_xh [x; h] + b as W_x x + W_h h + b: autograd keeps x and h (kept anyway by the
        attentions), not a [B, m, r, 2d] concatenation."""
        if not self.use_local:
            return self.fusion_tokens(x)
        weight, bias = self.fusion_tokens.weight, self.fusion_tokens.bias
        dim = x.shape[-1]
        return F.linear(x, weight[:, :dim], bias) + F.linear(h, weight[:, dim:])

    def parts(self, x: torch.Tensor, mask: torch.Tensor, block_len: int) -> BlockParts:
        """Run Eq. 11-18 and return every intermediate in block layout."""
        if block_len < 1:
            raise ValueError(f"block_len must be a positive integer, not {block_len}")
        batch, n, dim = x.shape
        r = block_len
        m = max(1, math.ceil(n / r))
        x_blocks = F.pad(x, (0, 0, 0, m * r - n)).view(batch, m, r, dim)
        mask_blocks = F.pad(mask, (0, m * r - n), value=False).view(batch, m, r)

        inside = direction_mask(r, self.direction, device=x.device)  # [r, r], shared by blocks
        intra_allowed = inside & mask_blocks.unsqueeze(-1) & mask_blocks.unsqueeze(-2)
        h = self.intra(x_blocks, intra_allowed, self.direction)  # Eq. 11, [B, m, r, d]

        pre_gates = self.fusion_tokens_of(x_blocks, h)  # [B, m, r, 2d]
        v = o = e = None
        if self.use_global:
            v = self.block_s2t(h.reshape(batch * m, r, dim), mask_blocks.reshape(batch * m, r))
            v = v.view(batch, m, dim)  # Eq. 12
            # a block without a real token neither attends nor is attended
            real_block = mask_blocks.any(dim=-1)  # [B, m]
            across = direction_mask(m, self.direction, device=x.device)
            inter_allowed = across & real_block.unsqueeze(-1) & real_block.unsqueeze(-2)
            o = self.inter(v, inter_allowed, self.direction)  # Eq. 13
            gate = torch.sigmoid(self.inter_gate(torch.cat([o, v], dim=-1)))  # Eq. 14
            e = gate * o + (1 - gate) * v  # Eq. 15; zero at padding blocks (v = o = 0 there)
            pre_gates = pre_gates + self.fusion_global(e).unsqueeze(2)  # E = e duplicated r times
        candidate, gate_logits = pre_gates.chunk(2, dim=-1)
        fused = self.activation(candidate)  # Eq. 16
        gate = torch.sigmoid(gate_logits)  # Eq. 17
        u = torch.lerp(x_blocks, fused, gate)  # Eq. 18, G * F + (1 - G) * x; keeps no 1 - G
        u = u * mask_blocks.unsqueeze(-1).to(u.dtype)
        return BlockParts(h=h, v=v, o=o, e=e, u=u)
