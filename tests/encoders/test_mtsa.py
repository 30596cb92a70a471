"""MTSA-specific properties: Algorithm 1 == Eq. 10-12, directions, ablations, paper sizes."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from encoders import build_encoder
from encoders.models.mtsa import MTSA

INPUT, WIDTH = 8, 12  # hidden_dim 6 -> width 12 = 2 heads x 6
VARIANTS = ["mtsa", "mtsa_no_masks", "mtsa_no_t2t", "mtsa_no_s2t"]


def small(name: str, **options: object) -> MTSA:
    torch.manual_seed(0)
    return build_encoder(name, input_dim=INPUT, hidden_dim=WIDTH // 2, **options)


def batch(lengths: list[int], max_len: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(len(lengths), max_len, INPUT, generator=generator)
    mask = torch.arange(max_len).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    return x, mask


def projections(encoder: MTSA, x: torch.Tensor) -> list[torch.Tensor]:
    """v (and q, k) per head, [B, h, L, d], recomputed from the module's weights."""
    attention = encoder.attention
    batch_size, length, _ = x.shape
    shape = (batch_size, length, -1, attention.heads, attention.head_dim)
    out = F.linear(x, attention.qkv.weight).view(shape)
    return list(out.permute(2, 0, 3, 1, 4))


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("t2t_scale", ["log_sigmoid", "identity"])
def test_fast_equals_tensor(name: str, t2t_scale: str) -> None:
    fast = small(name, t2t_scale=t2t_scale, attention_impl="fast").eval()
    tensor = small(name, t2t_scale=t2t_scale, attention_impl="tensor").eval()
    tensor.load_state_dict(fast.state_dict())
    x, mask = batch([6, 3, 1, 0], 6)
    expected, got = tensor(x, mask), fast(x, mask)
    torch.testing.assert_close(got.tokens, expected.tokens, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got.pooled, expected.pooled, atol=1e-5, rtol=1e-5)
    heads_fast = fast.attention.head_outputs(x, mask)
    heads_tensor = tensor.attention.head_outputs(x, mask)
    torch.testing.assert_close(heads_fast, heads_tensor, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", VARIANTS)
def test_fast_and_tensor_gradients_agree(name: str) -> None:
    fast = small(name).eval()
    tensor = small(name, attention_impl="tensor").eval()
    tensor.load_state_dict(fast.state_dict())
    x, mask = batch([5, 2, 0], 5)
    for encoder in (fast, tensor):
        out = encoder(x, mask)
        (out.pooled.square().sum() + out.tokens.sin().sum()).backward()
    for (param_name, a), b in zip(fast.named_parameters(), tensor.parameters(), strict=True):
        torch.testing.assert_close(a.grad, b.grad, atol=1e-5, rtol=1e-4, msg=param_name)


def test_fast_equals_tensor_with_attention_dropout() -> None:
    fast = small("mtsa", attention_impl="fast", attn_dropout=0.3).train()
    tensor = small("mtsa", attention_impl="tensor", attn_dropout=0.3).train()
    tensor.load_state_dict(fast.state_dict())
    fast.attention.dropout.p = tensor.attention.dropout.p = 0.0  # only attention dropout
    x, mask = batch([5, 2], 5)
    torch.manual_seed(1)
    got = fast.attention.head_outputs(x, mask)
    torch.manual_seed(1)
    expected = tensor.attention.head_outputs(x, mask)
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)
    torch.manual_seed(2)
    assert not torch.allclose(fast.attention.head_outputs(x, mask), got)  # dropout is active


def test_tensor_form_matches_eq_10_to_12_loop() -> None:
    """Eq. 10-12 written out per query j and feature l, from the module's own weights."""
    encoder = small("mtsa", attention_impl="tensor").eval()
    attention = encoder.attention
    x, mask = batch([5], 5)
    v, q, k = projections(encoder, x)
    w1, b1, w2, b2 = attention.s2t_w1, attention.s2t_b1, attention.s2t_w2, attention.s2t_b2
    expected = torch.zeros_like(v)
    for c, direction in enumerate(attention.directions):
        s = (F.relu(k[0, c] @ w1[c] + b1[c]) @ w2[c] + b2[c]).detach()  # [L, d]
        for j in range(5):
            keys = [i for i in range(5) if (i < j if direction == "forward" else i > j)]
            if not keys:
                continue
            for feature in range(6):
                logits = torch.stack(
                    [
                        F.logsigmoid(q[0, c, j] @ k[0, c, i] / math.sqrt(6)) + s[i, feature]
                        for i in keys
                    ]
                )
                probs = torch.softmax(logits, 0)
                expected[0, c, j, feature] = (probs * v[0, c, keys, feature]).sum()
    torch.testing.assert_close(attention.head_outputs(x, mask), expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("impl", ["fast", "tensor"])
def test_forward_heads_ignore_later_tokens_backward_heads_earlier(impl: str) -> None:
    encoder = small("mtsa", attention_impl=impl).eval()
    attention = encoder.attention
    assert attention.directions == ("forward", "backward")
    x, mask = batch([7], 7)
    base = attention.head_outputs(x, mask)
    t = 3
    later = x.clone()
    later[0, t + 1 :] += torch.randn(3, INPUT)
    earlier = x.clone()
    earlier[0, :t] += torch.randn(t, INPUT)
    after_later, after_earlier = (
        attention.head_outputs(later, mask),
        attention.head_outputs(earlier, mask),
    )
    torch.testing.assert_close(after_later[0, 0, : t + 1], base[0, 0, : t + 1], atol=1e-6, rtol=0)
    torch.testing.assert_close(after_earlier[0, 1, t:], base[0, 1, t:], atol=1e-6, rtol=0)
    assert not torch.allclose(after_later[0, 1, :t], base[0, 1, :t])  # backward heads do see them
    assert not torch.allclose(after_earlier[0, 0, t:], base[0, 0, t:])  # forward heads do see them


def test_tokens_with_nothing_to_attend_to_get_zero_head_output() -> None:
    encoder = small("mtsa").eval()
    x, mask = batch([4, 0], 4)
    heads = encoder.attention.head_outputs(x, mask)
    assert torch.all(heads[0, 0, 0] == 0)  # first token, forward mask
    assert torch.all(heads[0, 1, 3] == 0)  # last token, backward mask
    assert torch.all(heads[1] == 0)  # fully padded sentence


def test_tokens_are_each_heads_fusion_gate_of_its_values_and_attention() -> None:
    """U_c = G * v_c + (1 - G) * H_c, G = sigmoid([v_c; H_c] W_g + b_g), heads concatenated
    (the authors' use_fusion_gate=True), recomputed from the module's weights."""
    encoder = small("mtsa").eval()
    attention = encoder.attention
    torch.nn.init.normal_(attention.gate_bias)  # a non-zero b_g takes part too
    x, mask = batch([5, 3], 5)
    v = projections(encoder, x)[0]  # [B, h, L, d]
    heads = attention.head_outputs(x, mask)
    expected = []
    for c in range(attention.heads):
        pair = torch.cat([v[:, c], heads[:, c]], dim=-1)
        gate = torch.sigmoid(pair @ attention.gate_weight[c] + attention.gate_bias[c])
        expected.append(gate * v[:, c] + (1 - gate) * heads[:, c])
    expected = torch.cat(expected, dim=-1) * mask[..., None]
    torch.testing.assert_close(attention(x, mask), expected, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("name", VARIANTS)
def test_a_one_token_sentence_is_encoded_by_its_token(name: str) -> None:
    """Under the strict masks a lone token attends to nothing (H = 0); the fusion gate still
    passes its value on, so one-word sentences (a third of MPQA) do not all encode to zero."""
    encoder = small(name).eval()
    x, mask = batch([1, 1], 1)
    out = encoder(x, mask)
    if name != "mtsa_no_masks":
        assert torch.all(encoder.attention.head_outputs(x, mask) == 0)
    assert torch.all(out.pooled.abs().sum(dim=-1) > 0)
    assert not torch.allclose(out.pooled[0], out.pooled[1])


@pytest.mark.parametrize("autocast", [False, True])
def test_identity_scale_with_huge_dot_products_stays_finite_and_exact(autocast: bool) -> None:
    """exp(R) would overflow for R in the hundreds; the per-query shift keeps Algorithm 1 exact."""
    fast = small("mtsa", t2t_scale="identity").eval()
    with torch.no_grad():
        fast.attention.qkv.weight[WIDTH : 2 * WIDTH].mul_(60.0)  # W_q only: R grows, S does not
    tensor = small("mtsa", t2t_scale="identity", attention_impl="tensor").eval()
    tensor.load_state_dict(fast.state_dict())
    x, mask = batch([6, 2], 6)
    _, q, k = projections(fast, x)
    assert (q @ k.transpose(-1, -2)).abs().max() / math.sqrt(6) > 200
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        got = fast.attention.head_outputs(x, mask)
    assert torch.isfinite(got.float()).all()
    if not autocast:
        expected = tensor.attention.head_outputs(x, mask)
        torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-4)


def source2token_scores(encoder: MTSA, x: torch.Tensor) -> torch.Tensor:
    """S of Eq. 9 per head, [B, h, L, d], recomputed from the module's weights."""
    attention = encoder.attention
    _, _, k = projections(encoder, x)
    return F.relu(k @ attention.s2t_w1 + attention.s2t_b1) @ attention.s2t_w2 + attention.s2t_b2


def spreads(encoder: MTSA, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per sentence, the widest spread max - min over real tokens of any head's feature: [B]."""
    s = source2token_scores(encoder, x)
    real = mask[:, None, :, None]
    high = s.masked_fill(~real, float("-inf")).amax(dim=2)
    low = s.masked_fill(~real, float("inf")).amin(dim=2)
    return (high - low).flatten(1).amax(dim=1)


@pytest.mark.parametrize("scale", [12.0, 60.0, 800.0, 8000.0])
def test_fast_equals_tensor_for_any_source2token_spread(scale: float) -> None:
    """Spreads from ~30 to beyond 1e4 in one batch beside a sentence with a small spread."""
    fast = small("mtsa").eval()
    with torch.no_grad():
        fast.attention.s2t_w2.mul_(scale)
    tensor = small("mtsa", attention_impl="tensor").eval()
    tensor.load_state_dict(fast.state_dict())
    x, mask = batch([6, 5, 3, 1, 0], 6)
    x[1] *= 1e-3 / scale  # this sentence's scores stay close together: the matrix-product path
    spread = spreads(fast, x, mask)
    assert spread[1] < 1 and spread[0] > 2.5 * scale  # 8000 -> spread above 2e4
    expected = tensor.attention.head_outputs(x, mask)
    got = fast.attention.head_outputs(x, mask)
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)
    x_fast, x_tensor = x.clone().requires_grad_(), x.clone().requires_grad_()
    fast(x_fast, mask).pooled.sum().backward()
    tensor(x_tensor, mask).pooled.sum().backward()
    torch.testing.assert_close(x_fast.grad, x_tensor.grad, atol=1e-5, rtol=1e-4)
    for (name, p_fast), p_tensor in zip(fast.named_parameters(), tensor.parameters(), strict=True):
        torch.testing.assert_close(p_fast.grad, p_tensor.grad, atol=1e-4, rtol=1e-4, msg=name)


def test_fast_form_never_leaks_across_the_direction_masks() -> None:
    """Issue 13 reproduction: seed 3, the paper's sizes, S scaled by 60 (spread > 100).

    Changing token 7 must leave the forward head at queries 0-6 and changing token 2 the
    backward head at queries 3-9 unchanged (the old E_S floor changed them by 1.84).
    """
    torch.manual_seed(3)
    encoder = build_encoder("mtsa").eval()
    with torch.no_grad():
        encoder.attention.s2t_w2.mul_(60.0)
    x = torch.randn(1, 10, 300)
    mask = torch.ones(1, 10, dtype=torch.bool)
    assert spreads(encoder, x, mask).item() > 100
    heads = encoder.attention.head_outputs(x, mask)  # [B, (forward, backward), L, d]
    for token, head, unchanged in ((7, 0, slice(0, 7)), (2, 1, slice(3, 10))):
        changed = x.clone()
        changed[0, token] = torch.randn(300)
        after = encoder.attention.head_outputs(changed, mask)
        assert torch.equal(after[0, head, unchanged], heads[0, head, unchanged])
        assert not torch.equal(after[0, 1 - head], heads[0, 1 - head])  # the token does matter


@pytest.mark.parametrize("autocast", [False, True])
def test_huge_source2token_spread_stays_finite(autocast: bool) -> None:
    """S spreading by thousands, in train mode: outputs and gradients stay finite (also bf16)."""
    encoder = small("mtsa").train()
    with torch.no_grad():
        encoder.attention.s2t_w2.mul_(500.0)
    x, mask = batch([6, 2, 0], 6)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        out = encoder(x, mask)
    assert torch.isfinite(out.tokens.float()).all() and torch.isfinite(out.pooled.float()).all()
    out.pooled.float().sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in encoder.parameters() if p.grad is not None)


def test_no_t2t_is_masked_source2token_attention_over_v() -> None:
    """Without token2token, H_j = sum_{i<j} softmax_i(S_il) v_il for the forward head."""
    encoder = small("mtsa_no_t2t").eval()
    attention = encoder.attention
    assert attention.qkv.out_features == WIDTH  # only W_v: W_q and W_k are gone
    x, mask = batch([6], 6)
    (v,) = projections(encoder, x)
    s = F.relu(v @ attention.s2t_w1 + attention.s2t_b1) @ attention.s2t_w2 + attention.s2t_b2
    weights = torch.exp(s - s.amax(dim=2, keepdim=True))
    prefix_num = torch.cumsum(weights * v, dim=2) - weights * v  # strictly earlier tokens
    prefix_den = torch.cumsum(weights, dim=2) - weights
    expected = prefix_num[:, 0, 1:] / prefix_den[:, 0, 1:]
    torch.testing.assert_close(
        attention.head_outputs(x, mask)[:, 0, 1:], expected, atol=1e-5, rtol=1e-4
    )


def test_no_s2t_is_masked_scaled_dot_product_attention() -> None:
    """Without source2token, H_j = sum_i softmax_i(log sigmoid(R_ji) + M_ji) v_i."""
    encoder = small("mtsa_no_s2t").eval()
    attention = encoder.attention
    assert not hasattr(attention, "s2t_w1")
    x, mask = batch([6], 6)
    v, q, k = projections(encoder, x)
    logits = F.logsigmoid(q @ k.transpose(-1, -2) / math.sqrt(6))
    causal = torch.ones(6, 6, dtype=torch.bool)
    allowed = torch.stack([causal.tril(-1), causal.triu(1)])
    probs = torch.softmax(logits.masked_fill(~allowed, float("-inf")), dim=-1).nan_to_num(0.0)
    torch.testing.assert_close(attention.head_outputs(x, mask), probs @ v, atol=1e-5, rtol=1e-5)


def test_no_masks_heads_see_both_sides_but_not_themselves() -> None:
    encoder = small("mtsa_no_masks").eval()
    attention = encoder.attention
    assert attention.directions == ("nodiag", "nodiag")
    x, mask = batch([5], 5)
    base = attention.head_outputs(x, mask)
    later = x.clone()
    later[0, 4] += 3.0
    assert not torch.allclose(attention.head_outputs(later, mask)[0, :, 0], base[0, :, 0])
    alone_x, alone_mask = batch([1], 1)
    assert torch.all(attention.head_outputs(alone_x, alone_mask) == 0)  # diagonal disabled


def test_invalid_options_are_rejected() -> None:
    with pytest.raises(ValueError, match="even"):
        build_encoder("mtsa", input_dim=INPUT, hidden_dim=WIDTH // 2, heads=3)
    with pytest.raises(ValueError, match="divisible"):
        build_encoder("mtsa", input_dim=INPUT, hidden_dim=5, heads=4)
    with pytest.raises(ValueError, match="attention_impl"):
        build_encoder("mtsa", input_dim=INPUT, hidden_dim=WIDTH // 2, attention_impl="slow")
    with pytest.raises(ValueError, match="t2t_scale"):
        build_encoder("mtsa", input_dim=INPUT, hidden_dim=WIDTH // 2, t2t_scale="tanh")


def count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


# The authors' SNLI classifier (Proj_SNLI_mtsa m_mtsa.py): ELU dense over [sp; sh; sp-sh; sp*sh]
# (4 x 600 -> 300), a 300-d highway layer (two 300x300 dense layers) and the 3-way output layer.
SNLI_CLASSIFIER = (2400 * 300 + 300) + 2 * (300 * 300 + 300) + (300 * 3 + 3)


@pytest.mark.parametrize(
    ("name", "encoder_params", "paper_millions"),
    [
        ("mtsa", 1_983_000, 2.9),
        ("mtsa_no_masks", 1_983_000, 2.9),
        ("mtsa_no_t2t", 1_623_000, 2.5),
        ("mtsa_no_s2t", 1_621_800, 2.5),
    ],
)
def test_default_parameter_count_matches_table_1_and_3(
    name: str, encoder_params: int, paper_millions: float
) -> None:
    """Encoder alone ~2.0m; with the SNLI classifier the totals round to |θ| of Tables 1 and 3."""
    encoder = build_encoder(name)
    assert (encoder.input_dim, encoder.output_dim) == (300, 600)
    assert count(encoder) == encoder_params
    assert round((count(encoder) + SNLI_CLASSIFIER) / 1e6, 1) == paper_millions


@pytest.mark.parametrize("name", ["mtsa", "mtsa_no_t2t"])
def test_fast_form_passes_gradcheck_in_float64(name: str) -> None:
    """The fast form's ratio is dtype-generic: float64 in, float64 gradients (it used to round
    through float32, and gradcheck failed)."""
    encoder = build_encoder(name, input_dim=4, hidden_dim=2, dropout=0.0).double().eval()
    x = torch.randn(2, 4, 4, dtype=torch.float64, requires_grad=True)
    mask = torch.tensor([[True] * 4, [True] * 2 + [False] * 2])
    assert torch.autograd.gradcheck(lambda inputs: encoder(inputs, mask).pooled, (x,))


def test_the_old_option_name_warns_and_builds_the_same_model() -> None:
    """``impl`` was MTSA's name for what DiSAN and Bi-BloSAN call ``attention_impl`` (issue
    55.6): a user's old spelling, or a checkpoint's hyper-parameters, still build it."""
    from encoders import builder_accepts
    from encoders.registry import RenamedOptionWarning

    x, mask = batch([5, 3], 5)
    for name in ("mtsa", "mtsa_no_masks", "mtsa_no_t2t", "mtsa_no_s2t"):
        assert builder_accepts(name, "impl") and builder_accepts(name, "attention_impl")
        with pytest.warns(RenamedOptionWarning, match="impl is now called attention_impl"):
            old = small(name, impl="tensor").eval()
        assert old.attention.impl == "tensor"
        new = small(name, attention_impl="tensor").eval()
        assert torch.equal(old(x, mask).pooled, new(x, mask).pooled)
    with pytest.raises(TypeError, match="give attention_impl only"):
        small("mtsa", impl="fast", attention_impl="tensor")


@pytest.mark.parametrize("scale", [8.0, 12.0])
def test_fp16_fast_form_within_the_spread_limit_is_the_float32_one(scale: float) -> None:
    """Spreads of 22-53, past fp16's range for exp (its smallest subnormal is e^-16.6) and
    inside the fast form's limit of 60: under fp16 autocast the heads are the float32 ones
    within fp16's rounding. Until 2026-11-30 the fast form ran in fp16 there, E_S underflowed
    and queries whose visible keys all underflowed got H = 0 (and NaN gradients)."""
    encoder = small("mtsa").eval()
    with torch.no_grad():
        encoder.attention.s2t_w2.mul_(scale)
    x, mask = batch([6, 5, 3, 1, 0], 6)
    assert 20 < spreads(encoder, x, mask).max() < 60
    expected = encoder.attention.head_outputs(x, mask)
    with torch.autocast("cpu", dtype=torch.float16):
        got = encoder.attention.head_outputs(x, mask)
    assert got.dtype == torch.float16
    torch.testing.assert_close(got.float(), expected, atol=1e-2, rtol=1e-2)
