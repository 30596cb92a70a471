"""DiSAN's word-level baselines: literal attention references and |θ| vs Bi-BloSAN Table 3."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from encoders import build_encoder


def reference(encoder: torch.nn.Module, sentence: torch.Tensor) -> torch.Tensor:
    """s = sum_i P_i * x_i with P = softmax_i(W^T ELU(W1 x_i + b1) + b) (DiSAN Eq. 5, 12)."""
    attention = encoder.attention
    scores = F.elu(sentence @ attention.hidden.weight.T + attention.hidden.bias)
    scores = scores @ attention.score.weight.T + attention.score.bias  # [L, D] or [L, 1]
    return (torch.softmax(scores, dim=0) * sentence).sum(dim=0)


@pytest.mark.parametrize("name", ["word_additive", "word_s2t"])
def test_pooled_matches_literal_attention(name: str) -> None:
    torch.manual_seed(0)
    encoder = build_encoder(name, input_dim=4, hidden_dim=6).eval()
    lengths = [5, 2, 0]
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(3, 5, 4, generator=generator)
    mask = torch.arange(5) < torch.tensor(lengths).unsqueeze(1)
    out = encoder(x, mask)
    torch.testing.assert_close(out.tokens, x * mask.unsqueeze(-1))
    for row, length in enumerate(lengths[:2]):
        torch.testing.assert_close(out.pooled[row], reference(encoder, x[row, :length]))
    assert torch.all(out.pooled[2] == 0)


def test_additive_scores_one_weight_per_token_and_s2t_one_per_feature() -> None:
    additive, s2t = build_encoder("word_additive"), build_encoder("word_s2t")
    assert additive.attention.score.out_features == 1
    assert s2t.attention.score.out_features == 300
    assert additive.attention.hidden.out_features == s2t.attention.hidden.out_features == 300


def snli_head(sentence_dim: int, hidden: int = 300, classes: int = 3) -> int:
    """[s_p; s_h; s_p - s_h; s_p * s_h] -> 300 FC -> 3 (Bi-BloSAN Sec. 4.1)."""
    return 4 * sentence_dim * hidden + hidden + hidden * classes + classes


@pytest.mark.parametrize(
    ("name", "expected", "paper_millions"),
    [
        ("word_additive", 300 * 300 + 300 + 300 + 1, 0.45),  # "w/o mBloSA & source2token"
        ("word_s2t", 2 * (300 * 300 + 300), 0.54),  # "w/o mBloSA"
    ],
)
def test_parameter_count_matches_bi_blosan_table_3(
    name: str, expected: int, paper_millions: float
) -> None:
    encoder = build_encoder(name)
    count = sum(p.numel() for p in encoder.parameters())
    assert count == expected
    assert round((count + snli_head(encoder.output_dim)) / 1e6, 2) == paper_millions
