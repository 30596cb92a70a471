"""``attention_impl="chunked"``: the naive outputs and gradients, for every encoder taking it."""

from __future__ import annotations

import inspect

import pytest
import torch

from encoders import build_encoder, encoder_entry, list_encoders

MULTI_DIMENSIONAL = {
    "disan",
    "disan_nodir",
    "bi_blosan",
    "bi_blosan_no_local",
    "bi_blosan_no_global",
}
INPUT_DIM, HIDDEN = 7, 10


def takes_chunked_attention(name: str) -> bool:
    """Whether ``name`` offers the chunked tanh attention (its ``chunk_size``; MTSA's
    ``attention_impl`` is fast or tensor, tests/encoders/test_mtsa.py)."""
    return "chunk_size" in inspect.signature(encoder_entry(name).builder).parameters


def test_exactly_the_multi_dimensional_token2token_encoders_offer_the_chunked_attention() -> None:
    assert {name for name in list_encoders() if takes_chunked_attention(name)} == MULTI_DIMENSIONAL


def build(name: str, **kwargs: object) -> torch.nn.Module:
    torch.manual_seed(0)
    fixed = {"block_len": 3} if name.startswith("bi_blosan") else {}
    return build_encoder(name, input_dim=INPUT_DIM, hidden_dim=HIDDEN, **fixed, **kwargs).train()


def run(encoder: torch.nn.Module, x: torch.Tensor, mask: torch.Tensor) -> list[torch.Tensor]:
    """tokens, pooled and every parameter's gradient of one training step (dropout on)."""
    torch.manual_seed(1)  # same dropout masks for both impls
    out = encoder(x, mask)
    weights = torch.linspace(-1, 1, out.tokens.numel()).view_as(out.tokens)
    (out.pooled.square().sum() + (out.tokens * weights).sum()).backward()
    return [out.tokens.detach(), out.pooled.detach()] + [p.grad for p in encoder.parameters()]


@pytest.mark.parametrize("name", sorted(MULTI_DIMENSIONAL))
@pytest.mark.parametrize(
    ("lengths", "max_len", "chunk_size"),
    [
        ([11, 1, 0, 6], 11, 2),  # padding, 1-token and empty rows; 11 queries, tiles of 2
        ([10, 10], 10, 4),  # full rows; DiSAN's tiles 4 + 4 + 2, Bi-BloSAN's 3 + 1 blocks
        ([1, 1], 1, 3),  # length 1
    ],
)
def test_chunked_equals_naive(name: str, lengths: list[int], max_len: int, chunk_size: int) -> None:
    """Forward (both directions: the fw and bw blocks) and all parameter gradients, 1e-5 fp32."""
    generator = torch.Generator().manual_seed(2)
    x = torch.randn(len(lengths), max_len, INPUT_DIM, generator=generator)
    mask = torch.arange(max_len).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    naive = build(name, attention_impl="naive")
    chunked = build(name, attention_impl="chunked", chunk_size=chunk_size)
    for a, b in zip(naive.parameters(), chunked.parameters(), strict=True):
        assert torch.equal(a, b)
    names = ["tokens", "pooled", *(n for n, _ in naive.named_parameters())]
    expected, found = run(naive, x, mask), run(chunked, x, mask)
    for label, a, b in zip(names, expected, found, strict=True):
        torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5, msg=f"{name}: {label}")


@pytest.mark.parametrize("name", sorted(MULTI_DIMENSIONAL))
def test_unknown_impl_fails_at_build_time(name: str) -> None:
    with pytest.raises(ValueError, match="attention_impl must be one of naive, chunked"):
        build_encoder(name, attention_impl="flash")
