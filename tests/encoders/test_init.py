"""One initialisation, owned by the encoders, per matrix of the papers' equations.

"All weight matrices are initialized by Glorot Initialization, and the biases are initialized
with 0" (DiSAN Sec. 5; Bi-BloSAN Sec. 4.1; MTSA Appendix B; MPSAN "Experimental Settings").
Glorot-uniform draws from U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) of the paper's matrix,
so each check below names the matrix and its paper shape. Built at the papers' sizes (input
300, hidden 300): with 90,000 draws the largest |w| is within 1% of a, and PyTorch's default
(a = 1 / sqrt(fan_in)) or a Glorot bound over a fused layer would miss it.
"""

from __future__ import annotations

import math

import pytest
import torch

from encoders import build_encoder
from encoders.layers.source2token import Source2Token
from harness.training.module import TaskModule

D = 300


def assert_glorot(weight: torch.Tensor, fan_in: int, fan_out: int, what: str) -> None:
    """Every |w| <= a and the largest close to a, for a = sqrt(6 / (fan_in + fan_out))."""
    bound = math.sqrt(6.0 / (fan_in + fan_out))
    largest = weight.detach().abs().max().item()
    assert 0.97 * bound < largest <= bound, f"{what}: max |w| {largest:.4f}, Glorot {bound:.4f}"


def assert_zero(bias: torch.Tensor, what: str) -> None:
    assert torch.count_nonzero(bias) == 0, f"{what} is not zero"


def test_source2token_w1_w_glorot_biases_zero() -> None:
    """DiSAN Eq. 12-13: W1 (d x d), W (d x d), b1, b."""
    torch.manual_seed(0)
    layer = Source2Token(D)
    assert_glorot(layer.hidden.weight, D, D, "W1")
    assert_glorot(layer.score.weight, D, D, "W")
    assert_zero(layer.hidden.bias, "b1")
    assert_zero(layer.score.bias, "b")


def test_disan_every_matrix() -> None:
    """DiSAN Eq. 14, 15, 19 per block (d x d each), source2token on the 2d tokens."""
    torch.manual_seed(0)
    encoder = build_encoder("disan")
    for name, weight in encoder.named_parameters():
        if weight.ndim == 1:
            assert_zero(weight, name)
    for name, weight in encoder.named_parameters():  # both blocks: every matrix is d x d
        if weight.ndim == 2 and not name.startswith("source2token"):
            assert_glorot(weight, D, D, name)
    assert_glorot(encoder.source2token.hidden.weight, 2 * D, 2 * D, "s2t W1")
    assert_glorot(encoder.source2token.score.weight, 2 * D, 2 * D, "s2t W")


@pytest.mark.parametrize("name", ["bi_blosan", "bi_blosan_no_local", "bi_blosan_no_global"])
def test_bi_blosan_every_matrix(name: str) -> None:
    """Sec. 3.2 FC layers (d x 300); per direction Eq. 9 W^(1), W^(2) of the intra- and
    inter-block attention (d x d); Eq. 12 block source2token (d x d); Eq. 14 W^(g1), W^(g2)
    (d x d each); Eq. 16-17 W^(f1), W^(f2) (d x |[x; h; E]| each); Eq. 8 source2token (2d)."""
    torch.manual_seed(0)
    encoder = build_encoder(name)
    for param_name, param in encoder.named_parameters():
        if param.ndim == 1:
            assert_zero(param, param_name)
    for fc in encoder.fc:
        assert_glorot(fc[0].weight, D, D, "FC")
    for block in encoder.mblosa:
        assert_glorot(block.intra.key.weight, D, D, "intra W^(1)")
        assert_glorot(block.intra.query.weight, D, D, "intra W^(2)")
        columns = D * (1 + block.use_local + block.use_global)  # [x; h; E]
        for half in (slice(0, D), slice(D, 2 * D)):  # W^(f1), then W^(f2)
            parts = [block.fusion_tokens.weight[half]]
            if block.use_global:
                parts.append(block.fusion_global.weight[half])
            assert_glorot(torch.cat(parts, dim=1), columns, D, f"W^(f) rows {half}")
        if block.use_global:
            assert_glorot(block.inter.key.weight, D, D, "inter W^(1)")
            assert_glorot(block.inter.query.weight, D, D, "inter W^(2)")
            assert_glorot(block.block_s2t.hidden.weight, D, D, "block s2t W1")
            assert_glorot(block.block_s2t.score.weight, D, D, "block s2t W")
            w_g1, w_g2 = block.inter_gate.weight.split(D, dim=1)
            assert_glorot(w_g1, D, D, "W^(g1)")
            assert_glorot(w_g2, D, D, "W^(g2)")
    assert_glorot(encoder.pool.hidden.weight, 2 * D, 2 * D, "s2t W1")
    assert_glorot(encoder.pool.score.weight, 2 * D, 2 * D, "s2t W")


def test_mtsa_per_head_matrices() -> None:
    """MTSA Eq. 7 W_q, W_k, W_v per head (d x 300, d = 300 for 2 heads), Eq. 9 W1, W2 per head
    (d x d), the per-head fusion gate W_g (2d x d, zero b_g), source2token on 600."""
    torch.manual_seed(0)
    encoder = build_encoder("mtsa")
    attention = encoder.attention
    assert attention.head_dim == D
    for index, chunk in enumerate(attention.qkv.weight.split(D, dim=0)):
        assert_glorot(chunk, D, D, f"W_q/W_k/W_v head block {index}")
    for head in range(attention.heads):
        assert_glorot(attention.s2t_w1[head], D, D, f"W1 head {head}")
        assert_glorot(attention.s2t_w2[head], D, D, f"W2 head {head}")
    assert_zero(attention.s2t_b1, "b1")
    assert_zero(attention.s2t_b2, "b2")
    for head in range(attention.heads):
        assert_glorot(attention.gate_weight[head], 2 * D, D, f"W_g head {head}")
    assert_zero(attention.gate_bias, "b_g")
    assert_glorot(encoder.source2token.hidden.weight, 2 * D, 2 * D, "s2t W1")


def test_mpsan_per_unit_matrices() -> None:
    """MPSAN Eq. 1 W_h per unit (d x 300), Eq. 6 U, V per unit (1 x d), Eq. 15 W_P (300 x 5d)."""
    torch.manual_seed(0)
    encoder = build_encoder("mpsan")
    attention = encoder.attention
    units = len(attention.masks)
    for unit, weight in enumerate(attention.dense.weight.view(units, D, D)):
        assert_glorot(weight, D, D, f"W_h unit {unit}")
    for unit in range(units):  # vectors: 300 draws, the largest is within 3% of a
        assert_glorot(attention.key_weight[unit : unit + 1], D, 1, f"U unit {unit}")
        assert_glorot(attention.query_weight[unit : unit + 1], D, 1, f"V unit {unit}")
    assert_zero(attention.dense.bias, "b_h")
    assert_zero(attention.bias, "b")
    assert_glorot(encoder.fusion.weight.weight, D, 5 * D, "W_P")
    assert_zero(encoder.fusion.weight.bias, "b_P")
    assert_glorot(encoder.source2token.hidden.weight, D, D, "s2t W1")


@pytest.mark.parametrize("name", ["mtsa", "mpsan", "bi_blosan", "disan"])
def test_task_module_does_not_reinitialise_the_encoder(name: str) -> None:
    torch.manual_seed(0)
    torch.nn.Embedding(10, 8)  # TaskModule draws its embedding first
    encoder = build_encoder(name, input_dim=8, hidden_dim=6, dropout=0.25)
    torch.manual_seed(0)
    module = TaskModule(name, "single", 3, 10, 8, encoder_options={"hidden_dim": 6}, head_hidden=5)
    built = module.encoder.state_dict()
    for key, value in encoder.state_dict().items():
        if torch.is_tensor(value):
            assert torch.equal(built[key], value), key
