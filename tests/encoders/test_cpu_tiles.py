"""``encoders.layers.cpu_tiles``: the CPU tiles' library, its dtypes and its build folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from encoders.layers import cpu_tiles, fused_tiles

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.held_out,
    pytest.mark.skipif(
        not fused_tiles.available("cpu"), reason="no C++ compiler for the CPU tiles here"
    ),
]


def strided_tile(dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """A tile as the attention passes it: views into [N, d, L] tensors and an [N, L, L] mask,
    at offsets past 0 and with a last key span of fewer keys than a vector holds."""
    generator = torch.Generator().manual_seed(3)
    x, y = (torch.rand(3, 5, 41, generator=generator) + 0.5 for _ in "xy")
    v, g, s = (torch.randn(3, 5, 41, generator=generator) for _ in "vgs")
    allowed = torch.rand(3, 41, 41, generator=generator) < 0.6
    rows, keys = slice(7, 20), slice(2, 39)
    tile = (x[..., rows], y[..., keys], v[..., keys], allowed[:, rows, keys])
    rest = (g[..., rows], s[..., rows])
    return tuple(t.to(dtype) if t.is_floating_point() else t for t in (*tile, *rest))


def test_half_precision_tiles_are_summed_in_float32_and_returned_in_their_dtype() -> None:
    k2 = torch.tensor(10.0 * fused_tiles.LOG2_E)
    a, b, v, allowed, g, s = strided_tile(torch.float32)
    expected = [
        *cpu_tiles.tile_sums(a, b, v, allowed, k2),
        *cpu_tiles.tile_grads(a, b, v, allowed, k2, g, s),
    ]
    for dtype in (torch.bfloat16, torch.float16):
        half = strided_tile(dtype)
        found = [
            *cpu_tiles.tile_sums(*half[:4], k2),
            *cpu_tiles.tile_grads(*half[:4], k2, *half[4:]),
        ]
        assert all(t.dtype == dtype for t in found)
        # what rounding the inputs and outputs to 8 (bf16) or 11 (fp16) bits can move
        for got, want in zip(found, expected, strict=True):
            torch.testing.assert_close(got.float(), want, rtol=0.05, atol=0.05 * want.abs().max())


@pytest.mark.slow  # builds the library in a new folder (about 10 s)
def test_a_build_killed_midway_does_not_stop_the_next_one(tmp_path: Path) -> None:
    """torch's marker of a build under way, left by a process killed while building, is stale
    under the build's own lock: the next process builds and loads the library."""
    environment = {**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    script = (
        "from encoders.layers import cpu_tiles\n"
        "folder = cpu_tiles.build_folder()\n"
        "folder.mkdir(parents=True)\n"
        "(folder / 'lock').write_text('')  # as a killed build leaves it\n"
        "print(cpu_tiles.load().tile_sums)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sanbench_cpu.tile_sums" in done.stdout


CAPABILITY_CHECK = """
import torch
from encoders.layers import cpu_tiles, fused_tiles
from tests.encoders.test_cpu_tiles import strided_tile
a, b, v, allowed, g, s = strided_tile(torch.float64)
k2 = torch.tensor(10.0 * fused_tiles.LOG2_E, dtype=torch.float64)
found = [
    *cpu_tiles.tile_sums(a, b, v, allowed, k2),
    *cpu_tiles.tile_grads(a, b, v, allowed, k2, g, s),
]
expected = [
    *fused_tiles.tile_sums(a, b, v, allowed, k2),
    fused_tiles.tile_query_grads(a, b, v, allowed, k2, g, s),
    *fused_tiles.tile_key_grads(a, b, v, allowed, k2, g, s),
]
assert all(torch.allclose(x, y, rtol=0, atol=1e-12) for x, y in zip(found, expected, strict=True))
print(torch.backends.cpu.get_cpu_capability(), " ".join(cpu_tiles.compile_flags()))
"""


@pytest.mark.slow  # builds the library for each instruction set (about 10 s each)
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_the_library_is_exact_on_cpus_with_narrower_vectors(
    capability: str, tmp_path: Path
) -> None:
    """Built as for a CPU with AVX2 only, or with no vector unit torch uses (torch's
    ATEN_CPU_CAPABILITY), the tiles equal their expressions within 1e-12 in float64."""
    environment = {
        **os.environ,
        "ATEN_CPU_CAPABILITY": capability,
        "TORCH_EXTENSIONS_DIR": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", CAPABILITY_CHECK], env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0] == capability.upper()
    assert ("-mavx2" in done.stdout) == (capability == "avx2")
    assert "-mavx512f" not in done.stdout
