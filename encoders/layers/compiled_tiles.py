"""The chunked tanh attention's tile sums as compiled kernels behind two custom operators.

``sanbench::tanh_tile_sums`` and ``sanbench::tanh_tile_grads`` compute what
:func:`~encoders.layers.tanh_attention.eager_forward_sums` and
:func:`~encoders.layers.tanh_attention.eager_backward_sums` compute, with the weights fused into
the sums over the keys and over the queries, so that no [N, d, T, K] tensor is written: on CPU
by the kernels of a C++ library built once per machine (:mod:`encoders.layers.cpu_tiles`,
which registers them as the operators' CPU kernels as it loads) for the product form of the
tile (its a, b are A = exp(2a), B = exp(2b), r = 1 / (1 + A_q B_k)), elsewhere by
``torch.compile`` (Triton on CUDA) from the functions below with ``products=False``, for the
tanh form (its a, b are the pre-activations, t = tanh(a_q + b_k) = 1 - 2r), exact at every
magnitude, so that choosing a form needs no value read from the device (:func:`products_on`):

    w_qk = exp(-2c·r) = 2^(-k2·r), k2 = 2c·log2(e)      (0 where the mask forbids)
    forward:  Σ_k w v_k,  Σ_k w
    backward: M = w g_q (1 - t²) (v_k - s_q) with 1 - t² = 4·A_q B_k·r², g = ∂loss/∂s / Z;
              Σ_k M (∂a_q / c),  Σ_q M (∂b_k / c),  Σ_q w g (∂v_k)

In the tanh form w = 2^(k2·(t - 1) / 2) and 1 - t² directly.

k2 is a float of the operators' schema: the CPU kernels take it as a number; for the compiled
functions of other devices it is filled into a 0-d tensor on the tile's device, in its dtype
and at least float32 (:func:`_on_the_device`), so that a kernel reads it there at the tile's
precision, whatever c.

The weights are written with ``exp2``: inductor writes out a tensor that more than one reduction
reads when it is computed with ``exp`` (a "heavy" operation on CPU), but computes an ``exp2``
expression once inside the one loop that does both sums. :func:`available` runs both kernels
(building or compiling them) on a tiny tile the first time each device asks (on that device),
checks them against the eager tile, and on a machine that cannot build or compile them says so
once, quoting the compiler (:class:`EagerTilesWarning`): the attention then runs
the eager tiles (:mod:`encoders.layers.eager_tiles`), the same function, slower, and as exact
as the naive attention in float32 (docs/encoders.md). The
fake kernels give the outputs' shapes, so a prediction on ``meta`` tensors sees what the
compiled kernels allocate (only their outputs), and :data:`FLOPS_PER_PAIR` counts the
multiply-adds of the sums, for the compiled and the eager tiles alike.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.utils.flop_counter import register_flop_formula

from encoders.layers import cpu_tiles

LOG2_E = 1.0 / math.log(2.0)
# the inductor option that keeps a pointwise node read by two reductions inside their loop
# instead of writing it out (its default, 4 reads, writes the backward's w·g)
INLINE_READS = {"realize_reads_threshold": 64}
# multiply-adds per (query, key, feature) of the sums, 2 FLOPs each: forward Σ w v and Σ w; backward
# Σ_k U v, Σ_k U, Σ_q s U and Σ_q U, as batched products with [v, 1] and [s, 1] would count them
FLOPS_PER_PAIR = {"forward": 4, "backward": 8}
# compiled variants allowed per tile function: a process makes one per dtype, kind of tensor
# (inference or not) and tile offsets (about four: the first tiles of each mask direction)
RECOMPILE_LIMIT = 64
# the two operators, as a profiler names them (``harness.measurement.attention_cost``)
TILE_OPERATORS = ("sanbench::tanh_tile_sums", "sanbench::tanh_tile_grads")


class EagerTilesWarning(UserWarning):
    """This machine cannot compile the compiled tiles; the chunked attention runs the eager ones."""


def products_on(device: torch.device) -> bool:
    """Whether ``device``'s compiled tiles read the product form's A = exp(2a), B = exp(2b): the
    CPU's library does (and ``meta``, whose prediction models the CPU), so the attention reads
    on the CPU whether the pre-activations are within the form's bound (a load from memory
    there); elsewhere a read is a host synchronisation, and the compiled tiles take the
    pre-activations in the tanh form, which has no bound (issue 57.6)."""
    return device.type in ("cpu", "meta")


def _weights_and_slope(
    a: torch.Tensor, b: torch.Tensor, allowed: torch.Tensor, k2: torch.Tensor | float,
    products: bool,
) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    """[N, d, T, K] expressions (never built when compiled), from a [N, d, T], b [N, d, K] and
    allowed [N, T, K]: w = 2^(-k2·r), 0 where forbidden, and 1 - t² = 4·E·r² with E = A_q B_k
    (``products``: a and b are A and B), else w = 2^(k2·(t - 1) / 2) and 1 - t² from
    t = tanh(a_q + b_k)."""
    if products:
        e = a.unsqueeze(-1) * b.unsqueeze(-2)
        r = 1.0 / (e + 1.0)
        weights = torch.where(allowed.unsqueeze(1), torch.exp2(-k2 * r), 0.0)
        return weights, 4.0 * e * r * r
    t = torch.tanh(a.unsqueeze(-1) + b.unsqueeze(-2))
    weights = torch.where(allowed.unsqueeze(1), torch.exp2(0.5 * k2 * (t - 1.0)), 0.0)
    return weights, 1.0 - t * t


def tile_sums(
    a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
    k2: torch.Tensor | float, products: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    """Σ_k w v_k and Σ_k w [N, d, T] of one tile."""
    weights, _ = _weights_and_slope(a, b, allowed, k2, products)
    return (weights * v.unsqueeze(-2)).sum(-1), weights.sum(-1)


def tile_query_grads(
    a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
    k2: torch.Tensor | float, g_over_z: torch.Tensor, s: torch.Tensor, products: bool = True,
) -> torch.Tensor:  # fmt: skip
    """Σ_k M [N, d, T] (∂a / c) of one tile; M as in the module's docstring."""
    weights, slope = _weights_and_slope(a, b, allowed, k2, products)
    m = weights * g_over_z.unsqueeze(-1) * slope * (v.unsqueeze(-2) - s.unsqueeze(-1))
    return m.sum(-1)


def tile_key_grads(
    a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
    k2: torch.Tensor | float, g_over_z: torch.Tensor, s: torch.Tensor, products: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
    """Σ_q M (∂b / c) and Σ_q w g (∂v) [N, d, K] of one tile."""
    weights, slope = _weights_and_slope(a, b, allowed, k2, products)
    pg = weights * g_over_z.unsqueeze(-1)
    m = pg * slope * (v.unsqueeze(-2) - s.unsqueeze(-1))
    return m.sum(-2), pg.sum(-2)


@functools.cache
def _compiled() -> tuple[Callable[..., Any], ...]:
    """The three tile functions in the tanh form (``products=False``) compiled once per process
    for devices other than the CPU, shapes dynamic (the last tile and the key spans differ);
    imported on first use (the compiler costs 70 MB and 2 s)."""
    return tuple(
        torch.compile(functools.partial(fn, products=False), dynamic=True, options=INLINE_READS)
        for fn in (tile_sums, tile_query_grads, tile_key_grads)
    )


def fits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether a tile of queries ``a`` [N, d, T] and keys ``b`` [N, d, K] takes the compiled
    kernels: every size at least 2. The compiler specialises sizes 0 and 1, so such tiles (a
    first or last tile of one query or key, one sentence, one feature: few pairs) run eagerly,
    and the compiled kernels see no size the compiler specialises."""
    return min(*a.shape, b.shape[-1]) >= 2


def _compiled_call(index: int, *args: torch.Tensor) -> Any:
    """Compiled tile function ``index`` on ``args`` detached, in one grad mode: the compiler
    guards a view's base and requires_grad, and would compile again for each. It also
    specialises offsets 0 and 1 (a tile's sub-views start at 0, 1 or further on), dtypes and
    inference tensors: ``RECOMPILE_LIMIT`` leaves room for those variants, since past the
    compiler's default of 8 a call would run uncompiled and write [N, d, T, K] tensors. (Copying
    the views instead cost DiSAN's [8, 512, 300] inference 0.5 s of fresh pages.)"""
    with torch.no_grad(), torch.compiler.config.patch(recompile_limit=RECOMPILE_LIMIT):
        return _compiled()[index](*(arg.detach() for arg in args))


def _on_the_device(k2: float, a: torch.Tensor) -> torch.Tensor:
    """k2 as the compiled functions read it: a 0-d tensor on ``a``'s device, in its dtype and at
    least float32 (a bf16 k2 would move every weight), filled there (``torch.tensor`` of a
    number copies it from the host: on CUDA a blocking copy, a sync at every call)."""
    dtype = torch.promote_types(a.dtype, torch.float32)
    return torch.full((), k2, dtype=dtype, device=a.device)


# set in a thread while :func:`_on_the_cpu_kernels` dispatches its call again
_REDISPATCHING = threading.local()


def _on_the_cpu_kernels(operator: Callable[..., Any], *args: Any) -> Any:
    """``operator(*args)``, a CPU call that reached the operators' Python functions (the
    compiled kernels of other devices), dispatched again once :func:`cpu_tiles.load` has
    registered ``cpu_tiles.cpp``'s kernels on the CPU key: only a call before the load comes
    here (or one of another thread while the load runs: it waits for the load). A call that
    comes back here from that dispatch would be a registration gone wrong, and is refused
    rather than dispatched in a circle."""
    if getattr(_REDISPATCHING, "active", False):
        raise RuntimeError(f"{cpu_tiles.library_file()} registered no CPU kernel of the tiles")
    cpu_tiles.load()
    _REDISPATCHING.active = True
    try:
        return operator(*args)
    finally:
        _REDISPATCHING.active = False


@torch.library.custom_op(TILE_OPERATORS[0], mutates_args=())
def compiled_tile_sums(
    a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor, k2: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`tile_sums`, compiled (on devices other than the CPU, whose kernel is
    ``cpu_tiles.cpp``'s)."""
    if a.device.type == "cpu":
        return _on_the_cpu_kernels(compiled_tile_sums, a, b, v, allowed, k2)
    return _compiled_call(0, a, b, v, allowed, _on_the_device(k2, a))


@torch.library.custom_op(TILE_OPERATORS[1], mutates_args=())
def compiled_tile_grads(
    a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor, k2: float,
    g_over_z: torch.Tensor, s: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:  # fmt: skip
    """(Σ_k M, Σ_q M, Σ_q w g) of one tile, compiled (on devices other than the CPU, whose
    kernel is ``cpu_tiles.cpp``'s)."""
    if a.device.type == "cpu":
        return _on_the_cpu_kernels(compiled_tile_grads, a, b, v, allowed, k2, g_over_z, s)
    args = (a, b, v, allowed, _on_the_device(k2, a), g_over_z, s)
    return (_compiled_call(1, *args), *_compiled_call(2, *args))


def _keys_contiguous(t: torch.Tensor) -> torch.Tensor:
    """``t`` as ``cpu_tiles.cpp``'s ``keys_contiguous`` reads it: as it is when its keys are
    adjacent (stride 1), else a contiguous copy."""
    return t if t.stride(-1) == 1 else t.contiguous()


# The fake kernels allocate as the CPU kernels do (``at::empty_like`` of a, and of b with its keys
# adjacent): outputs of the same strides, which opcheck and torch.compile check.
@compiled_tile_sums.register_fake
def _(a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor, k2: float):
    return torch.empty_like(a), torch.empty_like(a)


@compiled_tile_grads.register_fake
def _(
    a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor, k2: float,
    g_over_z: torch.Tensor, s: torch.Tensor,
):  # fmt: skip
    keys = _keys_contiguous(b)
    return torch.empty_like(a), torch.empty_like(keys), torch.empty_like(keys)


def tile_pairs(a_shape: Sequence[int], b_shape: Sequence[int]) -> int:
    """(query, key, feature) triples of a tile of queries ``a`` [N, d, T], keys ``b`` [N, d, K]:
    N·d·T·K."""
    return math.prod(a_shape) * b_shape[-1]


@register_flop_formula(torch.ops.sanbench.tanh_tile_sums)
def _(a_shape, b_shape, *args, **kwargs) -> int:
    return FLOPS_PER_PAIR["forward"] * tile_pairs(a_shape, b_shape)


@register_flop_formula(torch.ops.sanbench.tanh_tile_grads)
def _(a_shape, b_shape, *args, **kwargs) -> int:
    return FLOPS_PER_PAIR["backward"] * tile_pairs(a_shape, b_shape)


def available(device: torch.device | str) -> bool:
    """Whether the compiled tiles build or compile, and agree with their uncompiled expressions, on
    a tiny tile of ``device`` (``meta``: this machine's CPU, whose step a prediction models;
    ``cuda`` without an index: the current GPU); says once per device why not. The first call
    per device runs real tiles on it: make it before any dispatch mode or ``meta`` device
    context is active (``harness.memory_prediction.step`` does)."""
    return _probe(probed_device(torch.device(device)))


def probed_device(device: torch.device) -> torch.device:
    """The device whose tiles :func:`available` checks for ``device``: the CPU for ``meta``,
    the current GPU for ``cuda`` without an index (each rank's, once Lightning has set it)."""
    if device.type in ("cpu", "meta"):
        return torch.device("cpu")
    if device.type == "cuda" and device.index is None:
        return torch.device("cuda", torch.cuda.current_device())
    return device


# what torch raises for a failed allocation and for a CUDA error (after some, an illegal memory
# access or a device-side assert, every later CUDA call of the process fails): the device's
# state, never "cannot compile", so the probe raises them (torch.AcceleratorError: torch >= 2.8)
DEVICE_FAILURES = tuple(
    getattr(torch, name)
    for name in ("OutOfMemoryError", "AcceleratorError")
    if hasattr(torch, name)
)


@functools.cache
def _probe(device: torch.device) -> bool:
    """:func:`available` for one device, once. What a build or compilation that fails raises
    (the CPU library's ``BuildError`` or a library file that does not load; elsewhere
    ``torch.compile``'s errors, RuntimeErrors) means the eager tiles; a failed allocation or a
    CUDA error (:data:`DEVICE_FAILURES`, also inside the compiler's error) is raised, uncached,
    for the caller to record (an ``oom`` point, a new worker); any other error is a bug,
    raised."""
    failures = (cpu_tiles.BuildError, OSError) if device.type == "cpu" else (RuntimeError,)
    try:
        if device.type == "cpu":
            cpu_tiles.load()  # which registers the operators' CPU kernels
        if tiles_agree(device):
            return True
        reason = "their sums differ from the uncompiled expressions'"
    except failures as error:
        cause = innermost(error)
        if isinstance(cause, DEVICE_FAILURES):
            raise cause from None  # the device's own error, as uncompiled code raises it
        # what the compiler said: the backend's error under torch.compile's wrapper; the CPU
        # library's BuildError quotes its compiler's line itself (its cause only the exit code)
        told = getattr(error, "inner_exception", None) or error
        lines = str(told).strip().splitlines() or [""]
        reason = f"{type(told).__name__} while building or compiling them: {lines[0]}"
    warnings.warn(
        f"the chunked tanh attention's compiled tiles cannot be used on {device} ({reason}); "
        "it runs its eager tiles: the same function, slower, as exact as the naive attention "
        "in float32 (docs/encoders.md)",
        EagerTilesWarning,
        stacklevel=3,
    )
    return False


def innermost(error: BaseException) -> BaseException:
    """The error under ``error``'s wrappers: torch.compile's ``BackendCompilerFailed`` holds what
    its backend raised as ``inner_exception`` (raised ``from None``); others name it as their
    ``__cause__``."""
    seen = {id(error)}
    while (inner := getattr(error, "inner_exception", None) or error.__cause__) is not None:
        if id(inner) in seen:
            break
        seen.add(id(inner))
        error = inner
    return error


def tiles_agree(device: torch.device) -> bool:
    """Both kernels on a tiny random float32 tile of ``device`` (with it current), against the
    tile's expressions in the form ``device``'s kernels read (:func:`products_on`). float32
    whatever torch's default dtype (Lightning's ``bf16-true`` sets it to bf16, whose sums differ
    by more than float32's tolerance)."""
    current = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    on = {"device": device, "dtype": torch.float32}
    with current:
        generator = torch.Generator(device=device).manual_seed(0)
        a, b, v, g, s = (
            torch.rand(2, 3, n, generator=generator, **on) + 0.5 for n in (5, 7, 7, 5, 5)
        )
        allowed = torch.rand(2, 5, 7, generator=generator, **on) < 0.7
        args = (a, b, v, allowed, 10.0 * LOG2_E)
        found = [*compiled_tile_sums(*args), *compiled_tile_grads(*args, g, s)]
        products = products_on(device)
        expected = [
            *tile_sums(*args, products=products),
            tile_query_grads(*args, g, s, products=products),
            *tile_key_grads(*args, g, s, products=products),
        ]
    pairs = zip(found, expected, strict=True)
    return all(torch.allclose(x, y, rtol=1e-5, atol=1e-6) for x, y in pairs)
