"""Multi-dimensional token2token attention with bounded logits, naive or in query tiles.

For every feature, query q attends to the allowed keys k with logits f_qk = c·tanh(a_q + b_k)
and s_q = Σ_k softmax_k(f_qk) · v_k (DiSAN Eq. 15-16, Bi-BloSAN Eq. 9). Tensors are laid out
[N, d, L]: the [N, d, L_q, L_k] logits reduce over their last, contiguous axis.

The logits lie in [-c, c], so exp(f - c) lies in [e^-2c, 1]: subtracting the constant c instead
of each row's maximum cancels exactly in the softmax, never overflows, and an allowed key never
underflows to a zero weight while e^-2c is a normal float (c < 43 in fp32). A query with no
allowed key gets s = 0. Half-precision inputs (fp16, bf16: autocast) are computed in float32
and the output returned in their dtype: in fp16, Z_q² and g / Z_q leave the range (NaN
gradients), and e^-2c is subnormal from c = 4.9 on.

``naive`` builds the whole [N, d, L_q, L_k] tensor; autograd keeps two of them (tanh and exp).
``chunked`` computes ``chunk_size`` queries at a time in :class:`ChunkedTanhAttention`, which keeps
only [N, d, L] statistics for backward and recomputes each tile there: the same function within
float32 rounding (docs/encoders.md gives the errors) in O(N·L·d) memory plus one tile. A tile's
sums run as compiled kernels (:mod:`encoders.layers.compiled_tiles`, which write no [N, d, T, K]
tensor) where the machine compiles them, as eager tensor operations otherwise; ``chunk_size=None``
takes :data:`TILE_SIZES`. Given the mask's ``direction``, a tile spans only the keys its queries
may attend (:func:`~encoders.layers.masking.direction_key_span`): a key outside has weight exactly
0 in every row, so skipping it changes nothing but the work (half of it under DiSAN's and
Bi-BloSAN's forward and backward masks). The span follows from the direction alone, never from the
mask's values, so the work and memory are the same on ``meta`` tensors.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.autograd.function import FunctionCtx, once_differentiable

from encoders.layers import compiled_tiles
from encoders.layers.eager_tiles import eager_tile_grads, eager_tile_sums
from encoders.layers.masking import direction_key_span, direction_mask

IMPLS = ("naive", "chunked")
# the encoders' default: chunked is exact, bounded in memory and faster than naive at the
# papers' shapes but Bi-BloSAN's shortest training steps (docs/benchmarks.md); naive is the
# papers' computation, which the profiler's paper figures name (reports.paper_numbers)
DEFAULT_IMPL = "chunked"
# queries per tile when chunk_size is None, by the tiles a call runs and whether it keeps a
# graph for backward; measured on the project's CPU (docs/encoders.md, DiSAN at [8, 512, 300],
# tiles of 8-64): the compiled tiles keep no [N, d, T, K] tensor, so the size trades calls
# against cache (fastest: 16 in inference, 32 in training); each eager tile keeps two, so 4
# keeps DiSAN's [64, 128, 300] training step under 550 MB (docs/benchmarks.md)
TILE_SIZES = {
    ("compiled", "infer"): 16,
    ("compiled", "train"): 32,
    ("eager", "infer"): 4,
    ("eager", "train"): 4,
}
DEFAULT_CHUNK_SIZE: int | None = None


def check_impl(impl: str, chunk_size: int | None) -> None:
    """Fail at construction on an unknown ``attention_impl`` or a non-positive tile size."""
    if impl not in IMPLS:
        raise ValueError(f"attention_impl must be one of {', '.join(IMPLS)}, not {impl!r}")
    if chunk_size is None:
        return
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer or None, not {chunk_size!r}")


def tanh_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    values: torch.Tensor,
    allowed: torch.Tensor,
    c: float,
    impl: str = DEFAULT_IMPL,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    direction: str = "all",
) -> torch.Tensor:
    """s [N, L_q, d] from query a [N, L_q, d], key b and values v [N, L_k, d] (a and b already
    divided by c) over the keys that both ``allowed`` bool [N, L_q, L_k] (query, key) and
    :func:`~encoders.layers.masking.direction_mask` ``direction`` allow (the chunked attention
    visits only the keys of the direction's span). s is in the inputs' promoted dtype,
    computed in at least float32 with autocast off."""
    if direction != "all":  # the same keys for both impls, whatever the mask lets through
        allowed = allowed & direction_mask(allowed.shape[-1], direction, allowed.device)
    dtype = torch.promote_types(torch.promote_types(query.dtype, key.dtype), values.dtype)
    compute = torch.promote_types(dtype, torch.float32)
    q, k, v = (t.to(compute).transpose(1, 2).contiguous() for t in (query, key, values))
    with autocast_off(q.device.type):
        if impl == "naive":
            s = naive_tanh_attention(q, k, v, allowed, c)
        elif torch.compiler.is_compiling():
            s = outside_the_graph()(q, k, v, allowed, c, chunk_size, direction)
        else:
            s = ChunkedTanhAttention.apply(q, k, v, allowed, c, chunk_size, direction)
    return s.to(dtype).transpose(1, 2)


def autocast_off(device_type: str) -> contextlib.AbstractContextManager[Any]:
    """Autocast disabled on ``device_type`` where it has one: the naive attention's product
    would run in the autocast dtype again."""
    if torch.amp.is_autocast_available(device_type):
        return torch.autocast(device_type, enabled=False)
    return contextlib.nullcontext()


@functools.cache
def outside_the_graph() -> Callable[..., torch.Tensor]:
    """:func:`chunked_outside_the_graph` excluded from ``torch.compile``'s graphs (made on first
    use: ``torch.compiler.disable`` imports the compiler, 70 MB and 2 s that an eager process
    never needs)."""
    return torch.compiler.disable(chunked_outside_the_graph)


def chunked_outside_the_graph(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    allowed: torch.Tensor,
    c: float,
    size: int | None,
    direction: str,
) -> torch.Tensor:
    """The chunked attention of a ``torch.compile``d model. Traced into the model's graph, the
    tile loop is unrolled and the compiled backward keeps every tile (the whole [N, d, L, L]
    again: 1580 MB instead of 137 MB for DiSAN at [8, 256, 300]), so the loop and its
    recomputation run eagerly, as in an eager model, with the same compiled tiles."""
    return ChunkedTanhAttention.apply(q, k, v, allowed, c, size, direction)


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


Tile = Callable[..., tuple[torch.Tensor, torch.Tensor | None]]


def tanh_tile(
    q_rows: torch.Tensor, k: torch.Tensor, shift: torch.Tensor, c: float, slope: bool
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The unnormalised weights exp(c·tanh(a_q + b_k) + shift) of the T queries of ``q_rows``
    [N, d, T] over the keys of ``k`` [N, d, K], and with ``slope`` also 1 - tanh²; [N, d, T, K].
    ``shift`` [N, 1, T, K]: -c where allowed, -inf elsewhere."""
    t = torch.tanh_(q_rows.unsqueeze(-1) + k.unsqueeze(-2))
    if not slope:
        return t.mul_(c).add_(shift).exp_(), None
    weights = torch.add(shift, t, alpha=c).exp_()
    return weights, t.mul_(t).neg_().add_(1.0)


def separable_tile(
    a_rows: torch.Tensor, b: torch.Tensor, shift: torch.Tensor, c: float, slope: bool
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """:func:`tanh_tile` without a tanh per (query, key, feature), from A = exp(2a), B = exp(2b):
    with E = A_q·B_k = exp(2(a_q + b_k)) and r = 1/(1 + E), tanh = 1 - 2r, so the weights are
    exp(c·tanh - c + shift') = exp(-2c·r + shift') and 1 - tanh² = 4·E·r² (no cancellation).
    ``shift`` [N, 1, T, K]: 0 where allowed, -inf elsewhere. One exponential per element where
    the tanh tile needs a tanh and an exponential (a tanh costs 2.7 of them on AVX2)."""
    e = a_rows.unsqueeze(-1) * b.unsqueeze(-2)
    if not slope:
        return e.add_(1.0).reciprocal_().mul_(-2.0 * c).add_(shift).exp_(), None
    r = torch.add(e, 1.0).reciprocal_()
    slope_t = e.mul_(r).mul_(r).mul_(4.0)
    return r.mul_(-2.0 * c).add_(shift).exp_(), slope_t


def separable_bound(dtype: torch.dtype) -> float:
    """The largest |a|, |b| for which exp(2a), exp(2b) and their product stay finite, so the
    separable tile holds no inf·0: a quarter of log(the dtype's largest float)."""
    return math.log(torch.finfo(dtype).max) / 4


def within_bound(q: torch.Tensor, k: torch.Tensor) -> bool:
    """Whether every |q|, |k| is within :func:`separable_bound`: one value read from the device
    (always true on ``meta`` tensors, which hold no values, and without queries or keys)."""
    if q.is_meta or not q.numel() or not k.numel():
        return True
    largest = torch.maximum(q.abs().amax(), k.abs().amax())
    return bool(largest <= separable_bound(q.dtype))


def tile_inputs(
    q: torch.Tensor, k: torch.Tensor, c: float
) -> tuple[torch.Tensor, torch.Tensor, Tile, float]:
    """What the tiles read: on the CPU (:func:`~encoders.layers.compiled_tiles.products_on`)
    exp(2q), exp(2k), :func:`separable_tile` and shift 0 :func:`within_bound`; q, k,
    :func:`tanh_tile` and shift -c otherwise (huge pre-activations) and on every other device,
    where reading the bound would be a host synchronisation and the compiled tiles take the
    tanh form, exact at every magnitude."""
    if compiled_tiles.products_on(q.device) and within_bound(q, k):
        return torch.exp(2 * q), torch.exp(2 * k), separable_tile, 0.0
    return q, k, tanh_tile, -c


def compiled_form(tile: Tile, device: torch.device) -> bool:
    """Whether ``device``'s compiled tiles compute ``tile``'s form: the product form on the CPU,
    the tanh form elsewhere (:func:`~encoders.layers.compiled_tiles.products_on`)."""
    return (tile is separable_tile) == compiled_tiles.products_on(device)


def shift_for(allowed_rows: torch.Tensor, offset: float, dtype: torch.dtype) -> torch.Tensor:
    """[N, 1, T, K]: ``offset`` where allowed, -inf elsewhere."""
    shift = torch.full(allowed_rows.shape, offset, dtype=dtype, device=allowed_rows.device)
    return shift.masked_fill_(~allowed_rows, float("-inf")).unsqueeze(1)


def eager_forward_sums(
    tile: Tile,
    x_rows: torch.Tensor,
    y: torch.Tensor,
    v: torch.Tensor,
    shift: torch.Tensor,
    c: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Σ_k w_qk v_k and Σ_k w_qk [N, d, T] of one tile, through one [N, d, T, K] buffer."""
    weights, _ = tile(x_rows, y, shift, c, False)
    return eager_tile_sums(weights, v)


def eager_backward_sums(
    tile: Tile,
    x_rows: torch.Tensor,
    y: torch.Tensor,
    v: torch.Tensor,
    shift: torch.Tensor,
    c: float,
    g_over_z_rows: torch.Tensor,
    s_rows: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One tile's Σ_k U (v_k - s_q) [N, d, T], Σ_q U (v_k - s_q) and Σ_q P g [N, d, K]
    (before the factor c), with U = P g (1 - t²); two [N, d, T, K] buffers."""
    weights, slope = tile(x_rows, y, shift, c, True)
    return eager_tile_grads(weights, slope, v, g_over_z_rows, s_rows)


class ChunkedTanhAttention(torch.autograd.Function):
    """Exact tanh attention in query tiles (FlashAttention's recomputation for Eq. 15-16).

    forward keeps what the tiles read (:func:`tile_inputs`), v, allowed, the output s and the
    softmax normaliser Z_q = Σ_k w_qk (all [N, d, L], mask [N, L, L] bool). Each tile covers
    its queries' key span. backward recomputes each tile's weights w and 1 - t², t = tanh(a_q +
    b_k), P = w / Z, then with g = dL/ds:
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
        chunk_size: int | None,
        direction: str = "all",
    ) -> torch.Tensor:
        x, y, tile, offset = tile_inputs(q, k, c)
        compiled = compiled_form(tile, q.device) and compiled_tiles.available(q.device)
        mode = "train" if any(ctx.needs_input_grad[:3]) else "infer"
        chunk_size = tile_size(chunk_size, compiled, mode)
        out = torch.empty_like(q)
        normaliser = torch.empty_like(q)
        empty = ~allowed.any(-1).unsqueeze(1)  # [N, 1, L_q]
        scale = exp2_scale(c) if compiled else None  # the compiled tiles' k2
        pairs: Counter[tuple[str, int]] = Counter()
        for rows, keys in tiles(direction, q.shape[-1], k.shape[-1], chunk_size):
            if keys.stop == keys.start:  # no query of the tile may attend anything: s = 0
                out[..., rows], normaliser[..., rows] = 0.0, 1.0
                continue
            a, b, v_keys, allowed_tile = tile_views(x, y, v, allowed, rows, keys)
            if scale is not None and compiled_tiles.fits(a, b):
                numerator, total = compiled_tiles.compiled_tile_sums(
                    a, b, v_keys, allowed_tile, scale
                )
                pairs["compiled", chunk_size] += compiled_tiles.tile_pairs(a.shape, b.shape)
            else:
                shift = shift_for(allowed_tile, offset, q.dtype)
                numerator, total = eager_forward_sums(tile, a, b, v_keys, shift, c)
                pairs["eager", chunk_size] += compiled_tiles.tile_pairs(a.shape, b.shape)
            total = total.masked_fill_(empty[..., rows], 1.0)
            normaliser[..., rows] = total
            out[..., rows] = numerator / total
        for record in _records:
            record.update(pairs)
        ctx.save_for_backward(x, y, v, allowed, out, normaliser)
        ctx.c, ctx.chunk_size, ctx.direction = c, chunk_size, direction
        ctx.tile, ctx.offset, ctx.compiled = tile, offset, compiled
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_out: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, y, v, allowed, out, normaliser = ctx.saved_tensors
        c, tile = ctx.c, ctx.tile
        grad_q, grad_k, grad_v = torch.zeros_like(x), torch.zeros_like(y), torch.zeros_like(v)
        g_over_z = grad_out / normaliser  # [N, d, L_q]
        scale = exp2_scale(c) if ctx.compiled else None
        for rows, keys in tiles(ctx.direction, x.shape[-1], y.shape[-1], ctx.chunk_size):
            if keys.stop == keys.start:  # s = 0 there, whatever q, k and v are
                continue
            a, b, v_keys, allowed_tile = tile_views(x, y, v, allowed, rows, keys)
            rest = (g_over_z[..., rows], out[..., rows])
            if scale is not None and compiled_tiles.fits(a, b):
                sums = compiled_tiles.compiled_tile_grads(a, b, v_keys, allowed_tile, scale, *rest)
            else:
                shift = shift_for(allowed_tile, ctx.offset, x.dtype)
                sums = eager_backward_sums(tile, a, b, v_keys, shift, c, *rest)
            grad_q[..., rows] = sums[0]
            grad_k[..., keys] += sums[1]
            grad_v[..., keys] += sums[2]
        return grad_q.mul_(c), grad_k.mul_(c), grad_v, None, None, None, None


def tile_size(chunk_size: int | None, compiled: bool, mode: str) -> int:
    """Queries per tile: ``chunk_size``, or when None :data:`TILE_SIZES` for the tiles (compiled
    or eager) and ``mode`` (infer or train)."""
    return chunk_size or TILE_SIZES[("compiled" if compiled else "eager", mode)]


def tile_views(
    x: torch.Tensor, y: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
    rows: slice, keys: slice,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:  # fmt: skip
    """What one tile reads: its queries' x [N, d, T], its keys' y and v [N, d, K] and its mask
    [N, T, K] (views)."""
    return x[..., rows], y[..., keys], v[..., keys], allowed[:, rows, keys]


def chunked_sizes(model: torch.nn.Module) -> set[int | None]:
    """The ``chunk_size`` of each chunked attention in ``model`` (modules with ``impl ==
    "chunked"`` and a ``chunk_size``); empty when it has none."""
    return {
        module.chunk_size
        for module in model.modules()
        if getattr(module, "impl", None) == "chunked" and hasattr(module, "chunk_size")
    }


def memory_by_shape(model: torch.nn.Module, device: torch.device) -> bool:
    """Whether ``model``'s tanh attentions take memory by their inputs' shape alone on
    ``device`` (``register_encoder``'s ``memory_by_shape``): the naive one does, and the chunked
    one off the CPU. On the CPU the chunked one reads its pre-activations' magnitude
    (:func:`tile_inputs`): past the product form's bound it runs eager tiles of another size."""
    return not chunked_sizes(model) or not compiled_tiles.products_on(device)


# Open records of :func:`recording_tiles`: (query, key, feature) triples per (tiles, size).
_records: list[Counter[tuple[str, int]]] = []


@contextlib.contextmanager
def recording_tiles() -> Iterator[Counter[tuple[str, int]]]:
    """The (query, key, feature) triples that chunked attentions' forward tiles attend while
    the block runs, per kind of tiles ("compiled" or "eager") and queries per tile; backward
    recomputes the same tiles with the same kind."""
    record: Counter[tuple[str, int]] = Counter()
    _records.append(record)
    try:
        yield record
    finally:
        _records.remove(record)


def tile_plan(
    model: torch.nn.Module,
    device: torch.device | str,
    mode: str,
    ran: Counter[tuple[str, int]] | None = None,
) -> str:
    """Which tiles ``model``'s chunked attentions ran (a :func:`recording_tiles` record ``ran``)
    or else would run in ``mode`` (infer or train) on ``device`` (with its index: "cuda" alone
    is the current GPU): "compiled tiles of 16", "eager tiles of 4", each kind and size with its
    share of the triples when more than one ran ("compiled tiles of 2 (98.4% of pairs), eager
    tiles of 2 (1.56%)": tiles with a size below 2, pre-activations past the product form's
    bound), or "" when it has none."""
    sizes = chunked_sizes(model)
    if not sizes:
        return ""
    if ran:
        total = sum(ran.values())
        parts = [(f"{kind} tiles of {size}", n / total) for (kind, size), n in ran.most_common()]
        if len(parts) == 1:
            return parts[0][0]
        first, *rest = parts
        shares = [f"{first[0]} ({100 * first[1]:.3g}% of pairs)"]
        return ", ".join(shares + [f"{name} ({100 * share:.3g}%)" for name, share in rest])
    compiled = compiled_tiles.available(device)
    name = "compiled" if compiled else "eager"
    resolved = sorted({tile_size(size, compiled, mode) for size in sizes})
    return ", ".join(f"{name} tiles of {size}" for size in resolved)


def exp2_scale(c: float) -> float:
    """k2 = 2c·log2(e), the compiled tiles' weights exp(-2c·r) being 2^(-k2·r)."""
    return 2.0 * c * compiled_tiles.LOG2_E


def tiles(
    direction: str, queries: int, keys: int, chunk_size: int
) -> Iterator[tuple[slice, slice]]:
    """Each tile's queries and the keys they may attend (:func:`direction_key_span`)."""
    for start in range(0, queries, chunk_size):
        rows = slice(start, start + chunk_size)
        yield rows, direction_key_span(direction, rows, keys)
