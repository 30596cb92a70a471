"""The chunked tanh attention's tile sums as eager tensor operations, behind two custom
operators: where the compiled tiles cannot be compiled, for tiles too small for them, and for
pre-activations past the product form's bound (:func:`~encoders.layers.tanh_attention.tanh_tile`).

Each sum is an elementwise product summed by ``torch.sum`` over the [N, d, T, K] buffers the
tile made, overwritten in place (nothing more of that size is allocated):

    forward:  Σ_k w v_k,  Σ_k w
    backward: M = w g (1 - t²) (v_k - s_q), g = ∂loss/∂s / Z;  Σ_k M,  Σ_q M,  Σ_q w g

never a batched product with [v, 1]: the CPU's small matrix products sum each row in one pass,
and Σ_k U v_k - s_q Σ_k U cancels where v_k is near s_q: those tiles had 1.2-2.6x naive
float32's rounding error, these have naive's (docs/encoders.md). The operators count the FLOPs
the compiled tiles count (:data:`~encoders.layers.compiled_tiles.FLOPS_PER_PAIR`), so a FLOP
count is the same whichever tiles ran; their fake kernels give the outputs, and the tile's
buffers are made (and seen by a prediction on ``meta`` tensors) before the call.
"""

from __future__ import annotations

import torch
from torch.utils.flop_counter import register_flop_formula

from encoders.layers.compiled_tiles import FLOPS_PER_PAIR, tile_pairs


@torch.library.custom_op("sanbench::eager_tile_sums", mutates_args=("weights",))
def eager_tile_sums(weights: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Σ_k w v_k and Σ_k w [N, d, T] from the weights [N, d, T, K] (overwritten) and the keys'
    values v [N, d, K]."""
    total = weights.sum(-1)
    return weights.mul_(v.unsqueeze(-2)).sum(-1), total


@torch.library.custom_op("sanbench::eager_tile_grads", mutates_args=("weights", "slope"))
def eager_tile_grads(
    weights: torch.Tensor, slope: torch.Tensor, v: torch.Tensor, g_over_z: torch.Tensor,
    s: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # fmt: skip
    """(Σ_k M [N, d, T], Σ_q M, Σ_q w g [N, d, K]) from the weights w and 1 - t² [N, d, T, K]
    (both overwritten), v [N, d, K], g_over_z and the outputs s [N, d, T]."""
    pg = weights.mul_(g_over_z.unsqueeze(-1))  # w g
    grad_v = pg.sum(-2)
    u = slope.mul_(pg)  # w g (1 - t²)
    m = u.mul_(torch.sub(v.unsqueeze(-2), s.unsqueeze(-1), out=pg))  # pg is read no more
    return m.sum(-1), m.sum(-2), grad_v


@eager_tile_sums.register_fake
def _(weights: torch.Tensor, v: torch.Tensor):
    return weights.new_empty(weights.shape[:-1]), weights.new_empty(weights.shape[:-1])


@eager_tile_grads.register_fake
def _(weights, slope, v, g_over_z, s):
    return weights.new_empty(weights.shape[:-1]), torch.empty_like(v), torch.empty_like(v)


@register_flop_formula(torch.ops.sanbench.eager_tile_sums)
def _(weights_shape, v_shape, *args, **kwargs) -> int:
    return FLOPS_PER_PAIR["forward"] * tile_pairs(weights_shape[:-1], v_shape)


@register_flop_formula(torch.ops.sanbench.eager_tile_grads)
def _(weights_shape, slope_shape, v_shape, *args, **kwargs) -> int:
    return FLOPS_PER_PAIR["backward"] * tile_pairs(weights_shape[:-1], v_shape)
