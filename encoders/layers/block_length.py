"""Bi-BloSAN's block length (Shen et al., ICLR 2018, Appendix A): the one place Eq. 19 and
Eq. 23 are written.

Eq. 19: mBloSA's memory xi ~ r^2 * (n/r) + (n/r)^2 (m = n/r intra-block self-attentions of
length r, one inter-block self-attention of length m) is minimal at r = cbrt(2n).

For sentence lengths ~ N(mu, sigma^2) and mini-batches of B sentences, Eq. 20-23 bound the
expected longest sentence of a batch by E[max] <= sigma * sqrt(2 ln B) + mu, which gives
r = cbrt(2 (sigma * sqrt(2 ln B) + mu)) (the formula closing Appendix A).
"""

from __future__ import annotations

import math


def memory_optimal_r(n: float) -> float:
    """Eq. 19: r = cbrt(2n), the real-valued minimiser of r^2 * n/r + (n/r)^2."""
    if n <= 0:
        raise ValueError(f"sequence length must be positive, not {n}")
    return (2.0 * n) ** (1.0 / 3.0)


def block_length(n: float) -> int:
    """Eq. 19's r rounded up: the block length mBloSA uses for (expected longest) length ``n``,
    an integer or Eq. 23's real-valued bound. The smallest integer r with r^3 >= 2n, so exact
    cubes are not rounded up by floating point."""
    target = 2 * max(n, 1)
    r = max(1, round(memory_optimal_r(max(n, 1))))
    while r**3 < target:
        r += 1
    while r > 1 and (r - 1) ** 3 >= target:
        r -= 1
    return r


def expected_max_length(mean: float, std: float, batch_size: int) -> float:
    """Eq. 23: upper bound sigma * sqrt(2 ln B) + mu of the expected longest length in a batch."""
    if batch_size < 1 or std < 0:
        raise ValueError(f"need batch_size >= 1 and std >= 0, got {batch_size} and {std}")
    return std * math.sqrt(2.0 * math.log(batch_size)) + mean


def appendix_a_r(mean: float, std: float, batch_size: int) -> float:
    """r = cbrt(2 (sigma * sqrt(2 ln B) + mu)) from a task's length statistics and batch size."""
    return memory_optimal_r(expected_max_length(mean, std, batch_size))
