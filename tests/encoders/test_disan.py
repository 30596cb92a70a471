"""DiSAN-specific properties: directions, Eq. 14-20 against a literal loop, parameter count."""

from __future__ import annotations

import pytest
import torch
from torch.nn.functional import elu

from encoders import build_encoder
from encoders.models.disan import DiSA, DiSAN, MultiDimToken2Token

# "In experiments, we always set c = 5" (DiSAN Sec. 3.1, after Eq. 15; the paper's line 59 here)
C = 5.0

# DiSAN's mask rules, written from the paper (Eq. 16-18): token j may attend to token i when...
RULES = {
    "forward": lambda i, j: i < j,
    "backward": lambda i, j: i > j,
    "nodiag": lambda i, j: i != j,
}


def slow_disa(block: DiSA, x: torch.Tensor, length: int) -> torch.Tensor:
    """Eq. 14-20 for one sentence x [L, input_dim], token by token."""
    att, gate = block.attention, block.fusion
    h = [elu(block.dense.weight @ x[t] + block.dense.bias) for t in range(length)]
    out = torch.zeros(x.shape[0], block.dense.out_features, dtype=x.dtype)
    for j in range(length):
        keys = [i for i in range(length) if RULES[block.direction](i, j)]
        s = torch.zeros_like(h[j])
        if keys:
            f = torch.stack(
                [
                    C
                    * torch.tanh(
                        (att.key.weight @ h[i] + att.query.weight @ h[j] + att.query.bias) / C
                    )
                    for i in keys
                ]
            )
            p = torch.softmax(f, dim=0)  # over tokens i, per feature
            s = sum(p[n] * h[i] for n, i in enumerate(keys))
        F = torch.sigmoid(
            gate.from_attention.weight @ s
            + gate.from_attention.bias
            + gate.from_input.weight @ h[j]
        )
        out[j] = F * h[j] + (1 - F) * s
    return out


def slow_source2token(layer: torch.nn.Module, u: torch.Tensor, length: int) -> torch.Tensor:
    scores = torch.stack(
        [
            layer.score.weight @ elu(layer.hidden.weight @ u[i] + layer.hidden.bias)
            + layer.score.bias
            for i in range(length)
        ]
    )
    p = torch.softmax(scores, dim=0)
    return sum(p[i] * u[i] for i in range(length))


def tiny(name: str, seed: int = 0) -> DiSAN:
    torch.manual_seed(seed)
    return build_encoder(name, input_dim=5, hidden_dim=4).double().eval()


@pytest.mark.parametrize("name", ["disan", "disan_nodir"])
def test_encoder_matches_literal_equations(name: str) -> None:
    encoder = tiny(name)
    expected = ["forward", "backward"] if name == "disan" else ["nodiag", "nodiag"]
    assert [block.direction for block in encoder.blocks] == expected  # [u_fw; u_bw]
    x = torch.randn(2, 6, 5, dtype=torch.double) * 3
    mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    out = encoder(x, mask)
    for b, length in enumerate(mask.sum(1).tolist()):
        u = torch.cat([slow_disa(block, x[b], length) for block in encoder.blocks], dim=-1)
        torch.testing.assert_close(out.tokens[b], u)
        torch.testing.assert_close(
            out.pooled[b], slow_source2token(encoder.source2token, u, length)
        )


@pytest.mark.parametrize(("direction", "changed", "fixed"), [("forward", 3, 3), ("backward", 2, 3)])
def test_direction_mask_hides_the_other_side(direction: str, changed: int, fixed: int) -> None:
    """forward: u_j for j <= 2 ignores tokens 3..; backward: u_j for j >= 3 ignores tokens ..2."""
    torch.manual_seed(0)
    block = DiSA(5, 4, direction).eval()
    x = torch.randn(1, 6, 5)
    mask = torch.ones(1, 6, dtype=torch.bool)
    other = x.clone()
    seen = slice(0, fixed) if direction == "forward" else slice(fixed, 6)
    hidden = slice(changed, 6) if direction == "forward" else slice(0, changed + 1)
    other[:, hidden] = torch.randn_like(other[:, hidden])
    before, after = block(x, mask), block(other, mask)
    torch.testing.assert_close(after[:, seen], before[:, seen], rtol=0, atol=0)
    assert not torch.allclose(after[:, hidden], before[:, hidden])


def test_nodir_sees_both_sides_and_differs_from_disan() -> None:
    torch.manual_seed(0)
    block = DiSA(5, 4, "nodiag").eval()
    x, mask = torch.randn(1, 6, 5), torch.ones(1, 6, dtype=torch.bool)
    other = x.clone()
    other[:, 5] = torch.randn(5)
    assert not torch.allclose(block(x, mask)[:, 0], block(other, mask)[:, 0])
    with_dir, without = tiny("disan"), tiny("disan_nodir")
    # same seed and module tree: identical parameters, only the masks differ
    for a, b in zip(with_dir.parameters(), without.parameters(), strict=True):
        assert torch.equal(a, b)
    xd = x.double()
    assert not torch.allclose(with_dir(xd, mask).pooled, without(xd, mask).pooled)


@pytest.mark.parametrize(("direction", "empty"), [("forward", 0), ("backward", -1)])
def test_token_with_nothing_to_attend_gets_zero(direction: str, empty: int) -> None:
    torch.manual_seed(0)
    block = DiSA(5, 4, direction).train()
    x = torch.randn(2, 4, 5, requires_grad=True)
    mask = torch.tensor([[True] * 4, [True, False, False, False]])
    h = elu(block.dense(x))
    allowed = torch.tensor([[RULES[direction](i, j) for i in range(4)] for j in range(4)])
    allowed = allowed & mask.unsqueeze(1)
    s = block.attention(h, allowed)
    assert torch.all(s[0, empty] == 0) and torch.all(s[1, 0] == 0)  # a 1-token sentence too
    assert torch.isfinite(s).all()
    s.sum().backward()
    assert torch.isfinite(x.grad).all()


def test_large_inputs_stay_exact_without_a_max_reduction() -> None:
    """Logits lie in [-c, c], so exp(logit - c) never overflows or underflows to 0."""
    torch.manual_seed(0)
    layer = MultiDimToken2Token(4).double()
    h = torch.randn(1, 5, 4, dtype=torch.double) * 1e4
    allowed = torch.ones(1, 5, 5, dtype=torch.bool)
    key = layer.key(h).unsqueeze(1)
    query = layer.query(h).unsqueeze(2)
    probs = torch.softmax(layer.c * torch.tanh((key + query) / layer.c), dim=2)  # [B, j, i, D]
    expected = (probs * h.unsqueeze(1)).sum(2)
    torch.testing.assert_close(layer(h, allowed), expected)


def test_parameter_count_matches_the_paper() -> None:
    """Encoder: 2 x (W_h 300x300+300, W1 + W2 + b, W_f1 + W_f2 + b_f) + source2token on 600-d.

    The paper's 2.35m (SNLI, Table 1) also counts the classifier: a 300-d FC layer on
    [s_p; s_h; s_p - s_h; s_p * s_h] (2400 -> 300) and the 3-way output layer.
    """
    encoder = build_encoder("disan")
    count = sum(p.numel() for p in encoder.parameters())
    per_block = (300 * 300 + 300) + (2 * 300 * 300 + 300) + (2 * 300 * 300 + 300)
    assert count == 2 * per_block + 2 * (600 * 600 + 600) == 1_623_000
    snli_classifier = (2400 * 300 + 300) + (300 * 3 + 3)
    assert round((count + snli_classifier) / 1e6, 2) == 2.34  # paper: 2.35m (see docs)
    assert abs(count + snli_classifier - 2.35e6) < 0.01e6
