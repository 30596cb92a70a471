"""CNN baselines: same-padded convolutions, masked max-pool, GLU + residual stack, |θ|."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from encoders import build_encoder


def padded(lengths: list[int], max_len: int, dim: int = 4, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(len(lengths), max_len, dim, generator=generator)
    mask = torch.arange(max_len) < torch.tensor(lengths).unsqueeze(1)
    return x, mask


def slow_same_conv(weight: torch.Tensor, bias: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """Literal window sums for one unpadded sentence x [L, C]; out-of-sentence positions are 0.

    Output i reads positions i - (k-1)//2 .. i + k//2 (k = width).
    """
    width = weight.shape[-1]
    out = []
    for i in range(x.shape[0]):
        total = bias.clone()
        for offset in range(width):
            j = i - (width - 1) // 2 + offset
            if 0 <= j < x.shape[0]:
                total = total + weight[:, :, offset] @ x[j]
        out.append(total)
    return torch.stack(out)


def test_multi_cnn_tokens_are_literal_same_padded_relu_convolutions() -> None:
    torch.manual_seed(0)
    encoder = build_encoder("multi_cnn", input_dim=4, hidden_dim=3).eval()
    lengths = [5, 2, 1]
    x, mask = padded(lengths, 7)
    out = encoder(x, mask)
    assert out.tokens.shape == (3, 7, 9)
    for row, length in enumerate(lengths):
        expected = torch.cat(
            [F.relu(slow_same_conv(c.weight, c.bias, x[row, :length])) for c in encoder.convs], -1
        )
        torch.testing.assert_close(out.tokens[row, :length], expected)


def test_multi_cnn_max_pool_ignores_padding() -> None:
    torch.manual_seed(0)
    encoder = build_encoder("multi_cnn", input_dim=4, hidden_dim=3).eval()
    x, mask = padded([3, 6, 0], 6)
    x[0, 3:] = 100.0  # large garbage after the sentence would win an unmasked max
    out = encoder(x, mask)
    torch.testing.assert_close(out.pooled[0], out.tokens[0, :3].amax(dim=0))
    torch.testing.assert_close(out.pooled[1], out.tokens[1].amax(dim=0))
    assert torch.all(out.pooled[2] == 0)
    alone = encoder(x[:1, :3], mask[:1, :3])
    torch.testing.assert_close(out.pooled[0], alone.pooled[0])


def test_hrchy_cnn_is_glu_stack_with_residuals() -> None:
    """h1 = GLU(conv1(x)), h2 = GLU(conv2(h1)) + h1, h3 = GLU(conv3(h2)) + h2."""
    torch.manual_seed(0)
    encoder = build_encoder("hrchy_cnn", input_dim=4, hidden_dim=3).eval()
    convs = encoder.fusion.convs
    assert len(convs) == 3 and all(c.kernel_size == (5,) for c in convs)
    lengths = [6, 3]
    x, mask = padded(lengths, 8)
    out = encoder(x, mask)
    for row, length in enumerate(lengths):
        hidden = x[row, :length]
        for index, conv in enumerate(convs):
            a, b = slow_same_conv(conv.weight, conv.bias, hidden).chunk(2, dim=-1)
            hidden = a * torch.sigmoid(b) + (hidden if index else 0)
        torch.testing.assert_close(out.tokens[row, :length], hidden)


@pytest.mark.parametrize("name", ["multi_cnn", "hrchy_cnn"])
def test_padding_after_a_sentence_does_not_change_it(name: str) -> None:
    torch.manual_seed(0)
    encoder = build_encoder(name, input_dim=4, hidden_dim=6).eval()
    x, mask = padded([4, 9], 9)
    x[0, 4:] = torch.randn(5, 4) * 50
    out = encoder(x, mask)
    alone = encoder(x[:1, :4], mask[:1, :4])
    torch.testing.assert_close(out.tokens[0, :4], alone.tokens[0])
    torch.testing.assert_close(out.pooled[0], alone.pooled[0])
    assert torch.all(out.tokens[0, 4:] == 0)


def snli_head(sentence_dim: int, hidden: int = 300, classes: int = 3) -> int:
    """[s_p; s_h; s_p - s_h; s_p * s_h] -> 300 FC -> 3 (Bi-BloSAN Sec. 4.1)."""
    return 4 * sentence_dim * hidden + hidden + hidden * classes + classes


def test_multi_cnn_parameter_count_matches_paper() -> None:
    encoder = build_encoder("multi_cnn")
    count = sum(p.numel() for p in encoder.parameters())
    assert encoder.output_dim == 600
    assert count == (3 + 4 + 5) * 300 * 200 + 3 * 200
    assert round((count + snli_head(600)) / 1e6, 1) == 1.4  # Bi-BloSAN Table 1


def test_hrchy_cnn_parameter_count() -> None:
    """3 x (5 x 300 x 600 + 600) + source2token(300); with the SNLI head 3.24m, the paper 3.4m."""
    encoder = build_encoder("hrchy_cnn")
    count = sum(p.numel() for p in encoder.parameters())
    assert encoder.output_dim == 300
    assert count == 3 * (5 * 300 * 600 + 600) + 2 * (300 * 300 + 300)
    assert round((count + snli_head(300)) / 1e6, 2) == 3.24
