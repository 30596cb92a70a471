"""``harness.measurement.attention_cost``: the compiled tiles' time per attended (query, key,
feature) from a profiled step, and the floor it is set beside."""

from __future__ import annotations

import math

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from encoders.layers import compiled_tiles
from encoders.layers.masking import direction_mask
from encoders.layers.tanh_attention import tanh_attention
from harness.measurement.attention_cost import floor_ns_per_pair, tile_ns_per_pair

pytestmark = pytest.mark.skipif(
    not compiled_tiles.available("cpu"), reason="this machine cannot compile the compiled tiles"
)


def _profiled_attention(
    n: int, length: int, d: int, direction: str, chunk_size: int, train: bool
) -> profile:
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(n, length, d, generator=generator) for _ in range(3))
    for t in (q, k, v):
        t.requires_grad_(train)
    allowed = direction_mask(length, direction).expand(n, length, length)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        out = tanh_attention(q, k, v, allowed, 5.0, "chunked", chunk_size, direction)
        if train:
            out.sum().backward()
    return prof


def _tile_seconds(prof: profile) -> float:
    events = [e for e in prof.events() if e.name in compiled_tiles.TILE_OPERATORS]
    return sum(e.cpu_time_total for e in events) / 1e6


@pytest.mark.parametrize("train", [False, True])
def test_every_key_of_every_query_is_counted_once_per_step(train: bool) -> None:
    # 37 queries in tiles of 8 (the last of 5): every (query, key, feature) of the 3 x 37 x 37 x 6
    # grid is attended once by the forward, whatever the backward recomputes
    prof = _profiled_attention(3, 37, 6, "all", 8, train)
    pairs = 3 * 6 * 37 * 37
    assert tile_ns_per_pair(prof) == pytest.approx(_tile_seconds(prof) / pairs * 1e9, rel=1e-9)


def test_a_direction_counts_only_the_keys_its_tiles_span() -> None:
    # forward: the tile of queries [8t, 8t + 8) spans keys [0, last query) (masking's key span)
    prof = _profiled_attention(2, 40, 4, "forward", 8, False)
    pairs = 2 * 4 * sum(8 * (start + 7) for start in range(8, 40, 8))  # the first tile's 7 too
    pairs += 2 * 4 * 8 * 7
    assert tile_ns_per_pair(prof) == pytest.approx(_tile_seconds(prof) / pairs * 1e9, rel=1e-9)


def test_a_step_without_compiled_tiles_has_no_time_per_pair() -> None:
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        torch.softmax(torch.randn(4, 8), -1)
    assert tile_ns_per_pair(prof) is None


@pytest.mark.slow  # compiles the floor's reduction (about 4 s)
def test_the_floor_is_timed_at_each_call() -> None:
    floors = [floor_ns_per_pair("cpu") for _ in range(2)]
    assert all(math.isfinite(floor) and floor > 0 for floor in floors)
