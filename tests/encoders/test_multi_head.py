"""Multi-head baseline: positional encoding, attention against a per-head loop, paper size."""

from __future__ import annotations

import math

import pytest
import torch

from encoders import build_encoder
from encoders.layers.source2token import Source2Token
from encoders.models.multi_head import MultiHead, sinusoidal_positions

INPUT, WIDTH, HEADS = 8, 16, 4  # hidden_dim 8 -> width 16


def small(**options: object) -> MultiHead:
    torch.manual_seed(0)
    return build_encoder(
        "multi_head", input_dim=INPUT, hidden_dim=WIDTH // 2, heads=HEADS, **options
    )


def test_sinusoidal_positions_follow_vaswani() -> None:
    encoding = sinusoidal_positions(7, 6)
    assert encoding.shape == (7, 6)
    for pos in range(7):
        for i in range(3):
            frequency = 10000.0 ** (2 * i / 6)
            assert encoding[pos, 2 * i].item() == pytest.approx(math.sin(pos / frequency), abs=1e-6)
            assert encoding[pos, 2 * i + 1].item() == pytest.approx(
                math.cos(pos / frequency), abs=1e-6
            )
    assert sinusoidal_positions(3, 5).shape == (3, 5)  # odd widths are cut, not padded


@pytest.mark.parametrize("output_projection", [False, True])
def test_matches_per_head_loop(output_projection: bool) -> None:
    encoder = small(output_projection=output_projection).eval()
    lengths, max_len = [5, 2], 5
    x = torch.randn(2, max_len, INPUT)
    mask = torch.arange(max_len).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    out = encoder(x, mask)
    w_q, w_k, w_v = encoder.qkv.weight.split(WIDTH, dim=0)
    d = WIDTH // HEADS
    for b, length in enumerate(lengths):
        inputs = x[b, :length] + sinusoidal_positions(length, INPUT)
        heads = []
        for c in range(HEADS):
            rows = slice(c * d, (c + 1) * d)
            q, k, v = inputs @ w_q[rows].T, inputs @ w_k[rows].T, inputs @ w_v[rows].T
            heads.append(torch.softmax(q @ k.T / math.sqrt(d), dim=-1) @ v)
        expected = torch.cat(heads, dim=-1)
        if output_projection:
            expected = expected @ encoder.out.weight.T
        torch.testing.assert_close(out.tokens[b, :length], expected, atol=1e-5, rtol=1e-5)
    assert isinstance(encoder.source2token, Source2Token)
    torch.testing.assert_close(out.pooled, encoder.source2token(out.tokens, mask))


def test_position_encoding_makes_token_order_matter() -> None:
    encoder = small().eval()
    x = torch.randn(1, 5, INPUT)
    mask = torch.ones(1, 5, dtype=torch.bool)
    order = torch.tensor([4, 2, 0, 3, 1])
    permuted = encoder(x[:, order], mask).tokens
    assert not torch.allclose(permuted, encoder(x, mask).tokens[:, order], atol=1e-4)


def test_heads_must_divide_hidden_dim() -> None:
    with pytest.raises(ValueError, match="divisible"):
        build_encoder("multi_head", input_dim=INPUT, hidden_dim=10, heads=8)


def test_default_parameter_count_matches_snli_table() -> None:
    """8 x 75 heads without W^O (1.26m) + Bi-BloSAN's SNLI classifier = 2.0m (Bi-BloSAN / MTSA
    Table 1); Vaswani's W^O would add 600 x 600 and give 2.3m."""
    encoder = build_encoder("multi_head")
    assert (encoder.input_dim, encoder.output_dim, encoder.heads) == (300, 600, 8)
    params = sum(p.numel() for p in encoder.parameters())
    assert params == 3 * 300 * 600 + 2 * (600 * 600 + 600)
    classifier = (2400 * 300 + 300) + (300 * 3 + 3)  # 300-d ReLU layer over [sp; sh; sp-sh; sp*sh]
    assert round((params + classifier) / 1e6, 1) == 2.0
    with_out = build_encoder("multi_head", output_projection=True)
    assert sum(p.numel() for p in with_out.parameters()) - params == 600 * 600
