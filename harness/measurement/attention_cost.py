"""How close the compiled tanh-attention tiles run to this CPU's floor, per (query, key, feature).

:func:`step_tile_ns_per_pair` runs one more step of a point under the profiler, after its timed
steps (so that no compilation falls in it), and divides the time spent in the compiled tile
operators (``sanbench::tanh_tile_sums`` and, in training, ``sanbench::tanh_tile_grads``) by the
(query, key, feature) triples the forward's tiles attended: one pass over the pairs in
inference, three in training (the forward's sums, then the backward's sums over keys and over
queries, each recomputing the weights). :func:`floor_ns_per_pair` is what one pass costs at
least on this CPU: each weight is an exponential of its pair's score, so the floor is a compiled
Σ_k 2^(a_q·b_k) over a [4096, 1024] grid made from two vectors (one multiply, one ``exp2`` and
one add per pair, nothing read from memory per pair), timed in the same process right after
the profiled step. CPU only: on CUDA the operators' CPU time is not their kernels' time.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils import benchmark

from encoders.layers.compiled_tiles import TILE_OPERATORS, tile_pairs

FLOOR_GRID = (4096, 1024)  # queries x keys of the floor's one reduction (16 MB if written out)
FLOOR_MIN_RUN_S = 0.3


def step_tile_ns_per_pair(step: Callable[[], None]) -> float | None:
    """Nanoseconds per attended (query, key, feature) of the compiled tiles in one run of
    ``step`` (an already warm step: see the module); None when no compiled tile ran."""
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        step()
    return tile_ns_per_pair(prof)


def tile_ns_per_pair(prof: profile) -> float | None:
    """Nanoseconds per attended (query, key, feature) that ``prof``'s step spent in the compiled
    tile operators (its events need ``record_shapes``); None when no compiled tile ran."""
    seconds, pairs = 0.0, 0
    for event in prof.events():
        if event.name not in TILE_OPERATORS:
            continue
        seconds += event.cpu_time_total / 1e6
        if event.name == TILE_OPERATORS[0]:  # the forward's sums: each tile's pairs once
            pairs += tile_pairs(event.input_shapes[0], event.input_shapes[1])
    return seconds / pairs * 1e9 if pairs else None


def _exponential_sum(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Σ_k 2^(a_q·b_k) [Q] from a [Q, 1] and b [1, K]."""
    return torch.exp2(a * b).sum(-1)


@functools.cache
def _floor_call(device_type: str) -> tuple[Callable[..., torch.Tensor], torch.Tensor, torch.Tensor]:
    """The floor's reduction compiled and warmed up, with its inputs; once per process."""
    device = torch.device(device_type)
    queries, keys = FLOOR_GRID
    generator = torch.Generator(device=device).manual_seed(0)
    a = torch.rand(queries, 1, generator=generator, device=device) + 0.5
    b = torch.rand(1, keys, generator=generator, device=device) + 0.5
    reduce = torch.compile(_exponential_sum, dynamic=False)
    reduce(a, b)
    return reduce, a, b


def floor_ns_per_pair(device_type: str) -> float:
    """Median nanoseconds per pair of the floor's reduction (see the module), timed now: the
    VM's speed drifts by 2-3x over minutes here, so each row times its floor beside its step."""
    reduce, a, b = _floor_call(device_type)
    timer = benchmark.Timer(
        "reduce(a, b)",
        globals={"reduce": reduce, "a": a, "b": b},
        num_threads=torch.get_num_threads(),
    )
    median = timer.blocked_autorange(min_run_time=FLOOR_MIN_RUN_S).median
    return median / math.prod(FLOOR_GRID) * 1e9
