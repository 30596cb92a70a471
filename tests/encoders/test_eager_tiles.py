"""The eager tiles (where the compiled tiles cannot compile, for small tiles and past the product
form's bound) are no less exact than the naive attention in float32, and count the FLOPs the
compiled tiles count."""

from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from encoders.layers import compiled_tiles
from encoders.layers.masking import direction_mask
from encoders.layers.tanh_attention import tanh_attention, tiles

pytestmark = pytest.mark.held_out
C = 5.0  # DiSAN Sec. 3.3 and Bi-BloSAN Eq. 9
# How much a float32 attention's error, measured as a whole tensor's, may vary with the order
# of its roundings alone: the compiled tiles and the naive attention compute the same tanh
# past the bound, and their errors there differ by up to 6% (0.91-1.06 of naive's).
ROUNDING_ORDER = 1.15


def _outputs_and_grads(impl: str, tensors: list[torch.Tensor], allowed, direction: str) -> list:
    q, k, v, g = (t.clone().requires_grad_(i < 3) for i, t in enumerate(tensors))
    s = tanh_attention(q, k, v, allowed, C, impl, None, direction)
    return [s.detach(), *torch.autograd.grad((s * g).sum(), [q, k, v])]


def _error(found: torch.Tensor, exact: torch.Tensor) -> float:
    return float((found.double() - exact).norm() / exact.norm())


@pytest.mark.parametrize("tiles_run", ["eager", "compiled"])
@pytest.mark.parametrize(
    ("magnitude", "direction"),
    [(0.5, "all"), (2.0, "forward"), (5.0, "backward"), (5.0, "all"), (10.0, "nodiag"),
     (30.0, "forward")],
)  # fmt: skip
def test_the_tiles_are_no_less_exact_than_naive_float32(
    tiles_run: str, magnitude: float, direction: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against a float64 naive attention, over the output and the three gradients together; a
    batched product with [v, 1] and Σ U v - s Σ U made the eager tiles' error 1.2-2.6x naive's
    (|a| ~ 5: 2.1-2.6x), and past the bound (|a| > 22.18) the compiled tiles take them too."""
    if tiles_run == "eager":
        monkeypatch.setattr(compiled_tiles, "available", lambda device_type: False)
    generator = torch.Generator().manual_seed(int(magnitude * 10) + len(direction))
    n, length, dim = 3, 80, 48
    q, k = (torch.randn(n, length, dim, generator=generator, dtype=torch.float64) for _ in "qk")
    v, g = (torch.randn(n, length, dim, generator=generator, dtype=torch.float64) for _ in "vg")
    q, k = q * magnitude, k * magnitude
    allowed = (torch.rand(n, length, length, generator=generator) < 0.8) & direction_mask(
        length, direction
    )
    exact = _outputs_and_grads("naive", [q, k, v, g], allowed, direction)
    single = [t.float() for t in (q, k, v, g)]
    naive = _outputs_and_grads("naive", single, allowed, direction)
    chunked = _outputs_and_grads("chunked", single, allowed, direction)
    naive_error = sum(_error(found, want) for found, want in zip(naive, exact, strict=True))
    tiles_error = sum(_error(found, want) for found, want in zip(chunked, exact, strict=True))
    assert tiles_error <= ROUNDING_ORDER * naive_error, (tiles_error, naive_error)


@pytest.mark.parametrize(("tiles_run", "prefix"), [("compiled", "tanh"), ("eager", "eager")])
def test_the_tiles_count_4_and_8_flops_per_pair(
    tiles_run: str, prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """4 FLOPs per (query, key, feature) forward, 8 backward, as batched products with [v, 1]
    would count them, whichever tiles ran."""
    if tiles_run == "eager":
        monkeypatch.setattr(compiled_tiles, "available", lambda device_type: False)
    else:
        assert compiled_tiles.available("cpu")  # its first call checks a tile: not inside the count
    n, length, dim = 2, 10, 3
    q, k, v = (torch.randn(n, length, dim, requires_grad=True) for _ in range(3))
    allowed = direction_mask(length, "forward").expand(n, length, length)
    pairs = sum(
        n * dim * len(range(length)[rows]) * (keys.stop - keys.start)
        for rows, keys in tiles("forward", length, length, 4)
    )
    with FlopCounterMode(display=False) as counter:
        tanh_attention(q, k, v, allowed, C, "chunked", 4, "forward").sum().backward()
    counts = {str(op): flops for op, flops in counter.get_flop_counts()["Global"].items()}
    assert (
        counts[f"sanbench.{prefix}_tile_sums"] == compiled_tiles.FLOPS_PER_PAIR["forward"] * pairs
    )
    assert (
        counts[f"sanbench.{prefix}_tile_grads"] == compiled_tiles.FLOPS_PER_PAIR["backward"] * pairs
    )
