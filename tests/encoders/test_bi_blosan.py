"""Bi-BloSAN: equations against a literal per-token reference, blocks, directions, ablations."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from encoders import build_encoder
from encoders.layers.block_length import block_length
from encoders.layers.masking import direction_mask
from encoders.layers.mblosa import MaskedBlockSelfAttention, MaskedSelfAttention
from encoders.models.bi_blosan import BiBloSAN

NAMES = ["bi_blosan", "bi_blosan_no_local", "bi_blosan_no_global"]
IN, HID = 5, 4


def small(name: str, block_len: int) -> BiBloSAN:
    torch.manual_seed(0)
    encoder = build_encoder(name, input_dim=IN, hidden_dim=HID, block_len=block_len)
    assert isinstance(encoder, BiBloSAN)
    return encoder.eval()


def padded(sentence: torch.Tensor, max_len: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Batch of [sentence, a full-length row], garbage in the sentence's padding."""
    generator = torch.Generator().manual_seed(seed)
    x = 100 * torch.randn(2, max_len, sentence.shape[-1], generator=generator)
    x[0, : len(sentence)] = sentence
    mask = torch.ones(2, max_len, dtype=torch.bool)
    mask[0, len(sentence) :] = False
    return x, mask


# ---------------------------------------------------------------- literal reference (loops)


def ref_masked_attention(
    att: MaskedSelfAttention, seq: torch.Tensor, direction: str
) -> torch.Tensor:
    """Eq. 9-10 token by token: query j attends to keys i < j (forward) or i > j (backward)."""
    rows = []
    for j in range(len(seq)):
        keys = [i for i in range(len(seq)) if (i < j if direction == "forward" else i > j)]
        if not keys:
            rows.append(torch.zeros(seq.shape[-1]))
            continue
        scores = torch.stack(
            [
                5
                * torch.tanh(
                    (att.key.weight @ seq[i] + att.query.weight @ seq[j] + att.query.bias) / 5
                )
                for i in keys
            ]
        )
        rows.append((torch.softmax(scores, dim=0) * seq[keys]).sum(0))
    return torch.stack(rows)


def ref_source2token(s2t: torch.nn.Module, seq: torch.Tensor) -> torch.Tensor:
    """Eq. 8: f(x_i) = W^T relu(W1 x_i + b1) + b (Sec. 4.1), softmax over tokens per feature."""
    scores = torch.stack([s2t.score(F.relu(s2t.hidden(t))) for t in seq])
    return (torch.softmax(scores, dim=0) * seq).sum(0)


def ref_mblosa(mod: MaskedBlockSelfAttention, x: torch.Tensor, r: int) -> torch.Tensor:
    """Eq. 11-18 for one unpadded sentence x [n, d]; the last block is simply shorter."""
    n, d = x.shape
    blocks = [list(range(start, min(start + r, n))) for start in range(0, n, r)]
    h = torch.cat([ref_masked_attention(mod.intra, x[b], mod.direction) for b in blocks])
    columns = [x, h] if mod.use_local else [x]
    weight = mod.fusion_tokens.weight
    if mod.use_global:
        v = torch.stack([ref_source2token(mod.block_s2t, h[b]) for b in blocks])
        o = ref_masked_attention(mod.inter, v, mod.direction)
        gate = torch.sigmoid(mod.inter_gate(torch.cat([o, v], dim=-1)))
        e = gate * o + (1 - gate) * v
        columns.append(torch.stack([e[t // r] for t in range(n)]))  # E: e_l duplicated r times
        weight = torch.cat([weight, mod.fusion_global.weight], dim=1)
    rows = []
    for t in range(n):
        z = weight @ torch.cat([c[t] for c in columns]) + mod.fusion_tokens.bias
        fused, gate = F.relu(z[:d]), torch.sigmoid(z[d:])
        rows.append(gate * fused + (1 - gate) * x[t])
    return torch.stack(rows)


def ref_encoder(encoder: BiBloSAN, x: torch.Tensor, r: int) -> tuple[torch.Tensor, torch.Tensor]:
    directions = [
        ref_mblosa(mblosa, F.relu(fc[0](x)), r)
        for fc, mblosa in zip(encoder.fc, encoder.mblosa, strict=True)
    ]
    tokens = torch.cat(directions, dim=-1)
    return tokens, ref_source2token(encoder.pool, tokens)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("n", "r", "max_len"), [(7, 3, 7), (6, 3, 11), (5, 5, 8), (4, 9, 4), (1, 2, 5)]
)
def test_matches_literal_reference(name: str, n: int, r: int, max_len: int) -> None:
    encoder = small(name, r)
    sentence = torch.randn(n, IN, generator=torch.Generator().manual_seed(n))
    x, mask = padded(sentence, max_len, seed=r)
    with torch.no_grad():
        out = encoder(x, mask)
        tokens, pooled = ref_encoder(encoder, sentence, r)
    torch.testing.assert_close(out.tokens[0, :n], tokens, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(out.pooled[0], pooled, atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------- blocks and block length


@pytest.mark.parametrize("name", NAMES)
def test_same_result_whether_or_not_r_divides_n(name: str) -> None:
    """Length 7 at r = 3: padded to 7 (short last block), 9 (divisible), 13 (padding blocks)."""
    encoder = small(name, 3)
    sentence = torch.randn(7, IN)
    outs = [encoder(*padded(sentence, max_len, seed=max_len)) for max_len in (7, 9, 13)]
    for out in outs[1:]:
        torch.testing.assert_close(out.tokens[0, :7], outs[0].tokens[0, :7], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(out.pooled[0], outs[0].pooled[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_one_block_when_r_reaches_n(name: str) -> None:
    """r = n, r > n and r > padded length are the same single block."""
    sentence = torch.randn(6, IN)
    x, mask = padded(sentence, 8, seed=0)
    outs = [small(name, r)(x, mask) for r in (6, 7, 8, 20)]
    for out in outs[1:]:
        torch.testing.assert_close(out.tokens[0, :6], outs[0].tokens[0, :6], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(out.pooled[0], outs[0].pooled[0], atol=1e-5, rtol=1e-5)


def test_block_length_is_ceil_cbrt_2n() -> None:
    """Appendix A: r = ceil(cbrt(2n)); exact cubes (2n = 8, 64, 1000) are not rounded up."""
    assert [block_length(n) for n in (1, 4, 5, 13, 14, 32, 33, 384, 500)] == [
        2,
        2,
        3,
        3,
        4,
        4,
        5,
        10,
        10,
    ]
    for n in range(1, 2000):
        r = block_length(n)
        assert r**3 >= 2 * n > (r - 1) ** 3


@pytest.mark.parametrize("name", NAMES)
def test_output_does_not_depend_on_how_the_batch_is_padded(name: str) -> None:
    """Issue 13: r belongs to the model, so a 5-token sentence gives the same outputs (1e-6)
    alone and in batches padded to 8, 14 and 32 (r used to follow the padded length)."""
    torch.manual_seed(0)
    encoder = build_encoder(name, input_dim=IN, hidden_dim=HID).eval()
    sentence = torch.randn(5, IN)
    alone = encoder(sentence[None], torch.ones(1, 5, dtype=torch.bool))
    for max_len in (8, 14, 32):
        out = encoder(*padded(sentence, max_len, seed=max_len))
        torch.testing.assert_close(out.pooled[0], alone.pooled[0], atol=1e-6, rtol=0)
        torch.testing.assert_close(out.tokens[0, :5], alone.tokens[0], atol=1e-6, rtol=0)


def test_default_block_length_is_eq19_for_32_tokens() -> None:
    """The default r is Appendix A's Eq. 19 for n = 32: cbrt(64) = 4."""
    assert build_encoder("bi_blosan").block_len == 4


def test_block_length_travels_with_the_state_dict() -> None:
    trained = small("bi_blosan", 3)
    state = trained.state_dict()
    assert state["_extra_state"] == {"block_len": 3}
    restored = small("bi_blosan", 7)
    restored.load_state_dict(state)
    assert restored.block_len == 3
    x, mask = padded(torch.randn(6, IN), 9, seed=0)
    torch.testing.assert_close(restored(x, mask).pooled, trained(x, mask).pooled)


def test_block_length_takes_eq23s_real_valued_bound() -> None:
    """Appendix A closing formula: r = cbrt(2 (sigma sqrt(2 ln B) + mu)), rounded up."""
    longest = 3.9 * math.sqrt(2 * math.log(32)) + 10.2  # TREC's training lengths, B = 32
    assert longest == pytest.approx(20.46, abs=0.01)
    assert block_length(longest) == 4  # cbrt(40.9) = 3.45
    assert [block_length(n) for n in (31.9, 32.0, 32.1, 4.0, 4.01)] == [4, 4, 5, 2, 3]


def test_padding_blocks_neither_attend_nor_are_attended() -> None:
    """A 3-token sentence in a 12-long batch at r = 3: blocks 1-3 are padding. Backward, block 0
    has only padding blocks after it, so its inter-block output o is exactly zero (not NaN)."""
    torch.manual_seed(0)
    mod = MaskedBlockSelfAttention(HID, "backward").eval()
    x = torch.randn(1, 12, HID)
    mask = torch.arange(12).unsqueeze(0) < 3
    parts = mod.parts(x * mask.unsqueeze(-1), mask, 3)
    assert torch.all(parts.o == 0) and torch.all(parts.e[0, 1:] == 0)
    assert torch.all(parts.u[0, 1:] == 0) and torch.isfinite(parts.u).all()


# ---------------------------------------------------------------- directions


def flat(blocks: torch.Tensor) -> torch.Tensor:
    """[B, m, r, d] -> [B, m * r, d]."""
    return blocks.flatten(1, 2)


def perturbed(x: torch.Tensor, positions: slice) -> torch.Tensor:
    other = x.clone()
    other[:, positions] = torch.randn_like(other[:, positions])
    return other


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_masked_self_attention_ignores_the_other_side(direction: str) -> None:
    torch.manual_seed(0)
    att = MaskedSelfAttention(HID)
    x = torch.randn(2, 8, HID)
    allowed = direction_mask(8, direction)
    changed = slice(5, None) if direction == "forward" else slice(None, 3)
    kept = slice(None, 5) if direction == "forward" else slice(3, None)
    before, after = att(x, allowed), att(perturbed(x, changed), allowed)
    torch.testing.assert_close(after[:, kept], before[:, kept])
    assert not torch.allclose(after[:, changed], before[:, changed])


@pytest.mark.parametrize("direction", ["forward", "backward"])
def test_block_attention_directions(direction: str) -> None:
    """n = 9, r = 3. Forward: change token 4 (block 1, after token 3) and everything later.
    - intra-block h of tokens 0..3 is unchanged (Eq. 11 with M^fw);
    - inter-block o of blocks 0 and 1 is unchanged: block k attends only to blocks l < k (Eq. 13
      with M^fw excludes the diagonal, as Eq. 10 does), and v_1 changes;
    - u of tokens 0..2 (earlier blocks) is unchanged, but u_3 changes although token 3 precedes
      every changed token: the gate of Eq. 15 mixes v_1 into e_1, and v_1 summarises all of
      block 1 (Eq. 12). The paper's mBloSA is directional across blocks, not inside the E term.
    Backward is the mirror (token 4 and everything earlier changes).
    """
    torch.manual_seed(0)
    mod = MaskedBlockSelfAttention(HID, direction).eval()
    x, mask = torch.randn(1, 9, HID), torch.ones(1, 9, dtype=torch.bool)
    changed = perturbed(x, slice(4, None) if direction == "forward" else slice(None, 5))
    before, after = mod.parts(x, mask, 3), mod.parts(changed, mask, 3)
    token, block = (
        (slice(0, 4), slice(0, 2)) if direction == "forward" else (slice(5, 9), slice(1, 3))
    )
    same_block_token = 3 if direction == "forward" else 5
    earlier_tokens = slice(0, 3) if direction == "forward" else slice(6, 9)
    torch.testing.assert_close(flat(after.h)[:, token], flat(before.h)[:, token])
    torch.testing.assert_close(after.o[:, block], before.o[:, block])
    assert not torch.allclose(after.v[:, block], before.v[:, block])
    torch.testing.assert_close(flat(after.u)[:, earlier_tokens], flat(before.u)[:, earlier_tokens])
    assert not torch.allclose(
        flat(after.u)[:, same_block_token], flat(before.u)[:, same_block_token]
    )


def test_encoder_forward_half_ignores_later_blocks() -> None:
    encoder = small("bi_blosan", 3)
    x, mask = torch.randn(1, 9, IN), torch.ones(1, 9, dtype=torch.bool)
    before, after = encoder(x, mask).tokens, encoder(perturbed(x, slice(6, None)), mask).tokens
    torch.testing.assert_close(after[:, :6, :HID], before[:, :6, :HID])  # u_fw, blocks 0-1
    assert not torch.allclose(after[:, :6, HID:], before[:, :6, HID:])  # u_bw sees block 2


# ---------------------------------------------------------------- ablations and sizes


def test_no_global_is_purely_local_and_full_model_is_not() -> None:
    x, mask = torch.randn(1, 9, IN), torch.ones(1, 9, dtype=torch.bool)
    other = perturbed(x, slice(6, None))
    local, full = small("bi_blosan_no_global", 3), small("bi_blosan", 3)
    torch.testing.assert_close(local(other, mask).tokens[:, :6], local(x, mask).tokens[:, :6])
    assert not torch.allclose(full(other, mask).tokens[:, :6], full(x, mask).tokens[:, :6])


def test_ablations_remove_the_right_parameters() -> None:
    full, no_local, no_global = (small(name, 3).mblosa[0] for name in NAMES)
    assert full.fusion_tokens.in_features == 2 * HID and full.fusion_global.in_features == HID
    assert no_local.fusion_tokens.in_features == HID and hasattr(no_local, "inter")
    assert no_global.fusion_tokens.in_features == 2 * HID
    assert not any(hasattr(no_global, part) for part in ("block_s2t", "inter", "fusion_global"))


@pytest.mark.parametrize("name", NAMES)
def test_every_parameter_gets_a_gradient_with_three_blocks(name: str) -> None:
    """The contract's gradient check at r = 3 with n = 9 (m = 3): with m <= 2 or r <= 2 a forward
    query has at most one key, its softmax is constant and W1/W2 get exactly zero gradient."""
    encoder = small(name, 3).train()
    x = torch.randn(3, 9, IN)
    mask = torch.arange(9).unsqueeze(0) < torch.tensor([[9], [2], [5]])
    out = encoder(x, mask)
    (out.pooled.square().sum() + out.tokens.square().sum()).backward()
    for param_name, param in encoder.named_parameters():
        assert param.grad is not None and param.grad.abs().sum() > 0, param_name


def snli_parameters(name: str, hidden_dim: int) -> int:
    """|θ| of Table 1/3: the encoder plus the SNLI head (300D FC over [s_p; s_h; s_p - s_h;
    s_p * s_h], then a 3-way output layer); word embeddings excluded."""
    encoder = build_encoder(name, hidden_dim=hidden_dim)
    features = 4 * encoder.output_dim
    return sum(p.numel() for p in encoder.parameters()) + features * 300 + 300 + 300 * 3 + 3


def test_parameter_counts_match_the_paper() -> None:
    """Default (hidden 300) is the 600D model: 3,426,000 encoder parameters, 4.1m with the SNLI
    head. The paper's 480D model (hidden 240) has 2.8m (Table 1) and its Table 3 ablations 2.5m
    and 1.8m, which the paper truncates to one decimal."""
    encoder = build_encoder("bi_blosan")
    assert sum(p.numel() for p in encoder.parameters()) == 3_426_000
    assert (encoder.token_dim, encoder.output_dim) == (600, 600)
    assert round(snli_parameters("bi_blosan", 300) / 1e6, 1) == 4.1
    assert round(snli_parameters("bi_blosan", 240) / 1e6, 1) == 2.8
    assert math.floor(snli_parameters("bi_blosan_no_local", 240) / 1e5) == 25
    assert math.floor(snli_parameters("bi_blosan_no_global", 240) / 1e5) == 18


@pytest.mark.parametrize(("impl", "largest"), [("naive", 64 * 4 * 8), ("chunked", 64 * 8)])
def test_no_tensor_grows_like_n_squared(impl: str, largest: int) -> None:
    """Memory is the point of the paper: with n = 64, r = 4, d = 8 the largest tensor the
    papers' computation saves for backward is [B, m, r, r, d] or [B, m, m, d] (2,048 values),
    never n x n x d (32,768); the chunked attention saves [B, n, d] ones (512)."""
    torch.manual_seed(0)
    mod = MaskedBlockSelfAttention(8, "forward", impl=impl)
    x, mask = torch.randn(1, 64, 8, requires_grad=True), torch.ones(1, 64, dtype=torch.bool)
    sizes: list[int] = []

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        sizes.append(tensor.numel())
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        mod(x, mask, 4)
    assert max(sizes) == largest


def test_rejects_a_non_positive_block_length() -> None:
    with pytest.raises(ValueError, match="block_len"):
        build_encoder("bi_blosan", block_len=0)
