"""Multi-dimensional token2token attention with bounded logits, naive or in query tiles.

For every feature, query q attends to the allowed keys k with logits f_qk = c·tanh(a_q + b_k)
and s_q = Σ_k softmax_k(f_qk) · v_k (DiSAN Eq. 15-16, Bi-BloSAN Eq. 9). Tensors are laid out
[N, d, L]: the [N, d, L_q, L_k] logits reduce over their last, contiguous axis and the weighted
sum and the normaliser come from one batched product with [v, 1].

The logits lie in [-c, c], so exp(f - c) lies in [e^-2c, 1]: subtracting the constant c instead
of each row's maximum cancels exactly in the softmax, never overflows, and an allowed key never
underflows to a zero weight while e^-2c is a normal float (c < 43 in fp32 and bf16). A query
with no allowed key gets s = 0.

``naive`` builds the whole [N, d, L_q, L_k] tensor; autograd keeps two of them (tanh and exp).
``chunked`` computes ``chunk_size`` queries at a time in :class:`ChunkedTanhAttention`, which
keeps only [N, d, L] statistics for backward and recomputes each tile there: the same numbers
in O(N·L·d) memory plus one tile. Given the mask's ``direction``, a tile spans only the keys
its queries may attend (:func:`~encoders.layers.masking.direction_key_span`): a key outside has
weight exactly 0 in every row, so skipping it changes nothing but the work (half of it under
DiSAN's and Bi-BloSAN's forward and backward masks). The span follows from the direction alone,
never from the mask's values, so the work and memory are the same on ``meta`` tensors.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch
from torch.autograd.function import FunctionCtx, once_differentiable

from encoders.layers.masking import direction_key_span

IMPLS = ("naive", "chunked")
# queries per tile; measured on [64, L, 300] DiSAN training steps (docs/benchmarks.md)
DEFAULT_CHUNK_SIZE = 4


def check_impl(impl: str, chunk_size: int) -> None:
    """Fail at construction on an unknown ``attention_impl`` or a non-positive tile size."""
    if impl not in IMPLS:
        raise ValueError(f"attention_impl must be one of {', '.join(IMPLS)}, not {impl!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, not {chunk_size!r}")


def tanh_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    values: torch.Tensor,
    allowed: torch.Tensor,
    c: float,
    impl: str = "naive",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    direction: str = "all",
) -> torch.Tensor:
    """s [N, L_q, d] from query a [N, L_q, d], key b and values v [N, L_k, d] (a and b already
    divided by c) and allowed bool [N, L_q, L_k] (query, key), which allows nothing
    :func:`~encoders.layers.masking.direction_mask` ``direction`` forbids."""
    dtype = torch.promote_types(torch.promote_types(query.dtype, key.dtype), values.dtype)
    q, k, v = (t.to(dtype).transpose(1, 2).contiguous() for t in (query, key, values))
    if impl == "naive":
        return naive_tanh_attention(q, k, v, allowed, c).transpose(1, 2)
    if torch.compiler.is_compiling():
        return chunked_outside_the_graph(q, k, v, allowed, c, chunk_size, direction).transpose(1, 2)
    return ChunkedTanhAttention.apply(q, k, v, allowed, c, chunk_size, direction, tile).transpose(
        1, 2
    )


@torch.compiler.disable
def chunked_outside_the_graph(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    allowed: torch.Tensor,
    c: float,
    size: int,
    direction: str,
) -> torch.Tensor:
    """The chunked attention of a ``torch.compile``d model. Traced into the model's graph, the
    tile loop is unrolled and the compiled backward keeps every tile (the whole [N, d, L, L]
    again: 1580 MB instead of 137 MB for DiSAN at [8, 256, 300]), so the loop and its
    recomputation run eagerly and only the tile body, the fused tanh/add/exp, is compiled."""
    return ChunkedTanhAttention.apply(q, k, v, allowed, c, size, direction, compiled_tile())


@functools.cache
def compiled_tile() -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    """``tile`` compiled once per process (shapes dynamic: the last tile is shorter)."""
    return torch.compile(tile, dynamic=True)


def naive_tanh_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor, c: float
) -> torch.Tensor:
    """[N, d, L_q] from q [N, d, L_q], k, v [N, d, L_k]; one [N, d, L_q, L_k] tensor at a time."""
    tanh = torch.tanh_(q.unsqueeze(-1) + k.unsqueeze(-2))  # the one broadcast-add allocation
    logits = tanh * c if tanh.requires_grad else tanh.mul_(c)
    weights = logits.sub_(c).masked_fill_(~allowed.unsqueeze(1), float("-inf")).exp_()
    # a product with v and a sum rather than one product with [v, 1]: autograd then keeps v and
    # Σ_k w v_k, not the [N, d, L, 2] stack and the [N, d, L_q, 2] result
    numerator = torch.matmul(weights, v.unsqueeze(-1)).squeeze(-1)
    empty = ~allowed.any(-1).unsqueeze(1)  # [N, 1, L_q]
    return numerator / weights.sum(-1).masked_fill_(empty, 1.0)


def with_ones(t: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """t stacked with ones along a new ``dim``: one product then gives Σ t·w and Σ w."""
    return torch.stack([t, torch.ones_like(t)], dim=dim)


def tile(
    q_rows: torch.Tensor, k: torch.Tensor, allowed_rows: torch.Tensor, c: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """tanh(a_q + b_k) and the unnormalised weights exp(c·tanh - c), 0 where not allowed;
    both [N, d, T, L_k] for the T queries of ``q_rows`` [N, d, T]."""
    t = torch.tanh_(q_rows.unsqueeze(-1) + k.unsqueeze(-2))
    # -c where allowed, -inf elsewhere: shift and mask in one fused pass (add with alpha)
    shift = torch.full(allowed_rows.shape, -c, dtype=t.dtype, device=t.device)
    shift = shift.masked_fill_(~allowed_rows, float("-inf")).unsqueeze(1)
    return t, torch.add(shift, t, alpha=c).exp_()


class ChunkedTanhAttention(torch.autograd.Function):
    """Exact tanh attention in query tiles (FlashAttention's recomputation for Eq. 15-16).

    forward keeps q, k, v, allowed, the output s and the softmax normaliser Z_q = Σ_k w_qk
    (all [N, d, L], mask [N, L, L] bool). Each tile covers its queries' key span.
    backward recomputes each tile's t = tanh(a_q + b_k)
    and P = w / Z, then with g = dL/ds:
    dv_k = Σ_q P g_q;  U = P g (1 - t²);  da_q = c Σ_k U (v_k - s_q);  db_k = c Σ_q U (v_k - s_q)
    (softmax backward dL/df = P g (v - s), chain rule through c·tanh).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        q: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        allowed: torch.Tensor,
        c: float,
        chunk_size: int,
        direction: str = "all",
        tile: Callable[..., tuple[torch.Tensor, torch.Tensor]] = tile,
    ) -> torch.Tensor:
        out = torch.empty_like(q)
        normaliser = torch.empty_like(q)
        values = with_ones(v)  # [N, d, L_k, 2]
        empty = ~allowed.any(-1).unsqueeze(1)  # [N, 1, L_q]
        for start in range(0, q.shape[-1], chunk_size):
            rows = slice(start, start + chunk_size)
            keys = direction_key_span(direction, rows, k.shape[-1])
            if keys.stop == keys.start:  # no query of the tile may attend anything: s = 0
                out[..., rows], normaliser[..., rows] = 0.0, 1.0
                continue
            _, weights = tile(q[..., rows], k[..., keys], allowed[:, rows, keys], c)
            numerator, total = torch.matmul(weights, values[..., keys, :]).unbind(-1)
            total = total.masked_fill_(empty[..., rows], 1.0)
            normaliser[..., rows] = total
            out[..., rows] = numerator / total
        ctx.save_for_backward(q, k, v, allowed, out, normaliser)
        ctx.c, ctx.chunk_size, ctx.direction, ctx.tile = c, chunk_size, direction, tile
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        q, k, v, allowed, out, normaliser = ctx.saved_tensors
        c, chunk_size, direction, tile = ctx.c, ctx.chunk_size, ctx.direction, ctx.tile
        grad_q, grad_k, grad_v = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
        g_over_z = (grad_out / normaliser).unsqueeze(-1)  # [N, d, L_q, 1]
        values = with_ones(v)  # [N, d, L_k, 2]
        for start in range(0, q.shape[-1], chunk_size):
            rows = slice(start, start + chunk_size)
            keys = direction_key_span(direction, rows, k.shape[-1])
            if keys.stop == keys.start:  # s = 0 there, whatever q, k and v are
                continue
            t, weights = tile(q[..., rows], k[..., keys], allowed[:, rows, keys], c)
            pg = weights.mul_(g_over_z[..., rows, :])  # P g
            grad_v[..., keys] += pg.sum(-2)
            u = torch.addcmul(pg, pg, t.mul_(t), value=-1, out=t)  # P g (1 - t²)
            u_v, u_sum = torch.matmul(u, values[..., keys, :]).unbind(-1)  # Σ_k U v_k, Σ_k U
            s_rows = out[..., rows]
            grad_q[..., rows] = u_v - s_rows * u_sum
            s_u, u_col = torch.matmul(with_ones(s_rows, dim=-2), u).unbind(-2)  # [N, d, L_k]
            grad_k[..., keys] += v[..., keys] * u_col - s_u
        return grad_q.mul_(c), grad_k.mul_(c), grad_v, None, None, None, None, None
