"""Properties every registered encoder must have (the interface contract).

Encoders are built small (input 16, hidden 24) so the whole grid runs in seconds on a CPU.
Padded positions of ``x`` hold random garbage: a padded token must never change a real token.
Encoders that take ``attention_impl`` are checked with each implementation.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import torch

from encoders import EncoderOutput, build_encoder, encoder_entry, list_encoders
from encoders.layers.tanh_attention import IMPLS
from encoders.models.mtsa import IMPLS as MTSA_IMPLS

INPUT_DIM = 16
SMALL = {"hidden_dim": 24}


def small_encoder(name: str, **kwargs: Any) -> torch.nn.Module:
    torch.manual_seed(0)
    return build_encoder(name, input_dim=INPUT_DIM, **SMALL, **kwargs)


def batch(lengths: list[int], max_len: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(len(lengths), max_len, INPUT_DIM, generator=generator)
    mask = torch.arange(max_len).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    return x, mask


ALL = list_encoders()


def build_variants(name: str) -> list[Any]:
    """(name, kwargs) per attention implementation the encoder offers; chunked with tiles of 2
    queries, so that the lengths used here span several tiles."""
    parameters = inspect.signature(encoder_entry(name).builder).parameters
    if "attention_impl" not in parameters:
        return [pytest.param(name, {}, id=name)]
    if "chunk_size" not in parameters:  # MTSA's fast and tensor forms
        return [pytest.param(name, {"attention_impl": v}, id=f"{name}-{v}") for v in MTSA_IMPLS]
    options = {impl: {"attention_impl": impl} for impl in IMPLS}
    options["chunked"]["chunk_size"] = 2
    return [pytest.param(name, kwargs, id=f"{name}-{impl}") for impl, kwargs in options.items()]


VARIANTS = [variant for name in ALL for variant in build_variants(name)]


PAPER_NAMES = {
    *("disan", "disan_nodir", "mpsan", "bi_blosan", "bi_blosan_no_local", "bi_blosan_no_global"),
    *("mtsa", "mtsa_no_masks", "mtsa_no_t2t", "mtsa_no_s2t", "multi_head"),
    *("bilstm", "bigru", "bisru", "multi_cnn", "hrchy_cnn"),
    *("word_additive", "word_s2t", "bilstm_s2t"),
}


def test_every_encoder_of_the_papers_is_registered() -> None:
    assert set(ALL) >= PAPER_NAMES


@pytest.mark.parametrize(("name", "kwargs"), VARIANTS)
def test_shapes_dtypes_and_zero_padding(name: str, kwargs: dict[str, Any]) -> None:
    encoder = small_encoder(name, **kwargs).eval()
    x, mask = batch([7, 1, 4], 7)
    out = encoder(x, mask)
    assert isinstance(out, EncoderOutput)
    assert out.tokens.shape == (3, 7, encoder.token_dim)
    assert out.pooled.shape == (3, encoder.output_dim)
    assert out.tokens.dtype == out.pooled.dtype == torch.float32
    assert encoder.input_dim == INPUT_DIM
    assert torch.all(out.tokens[~mask] == 0)


@pytest.mark.parametrize(("name", "kwargs"), VARIANTS)
def test_finite_for_single_token_and_fully_padded_rows(name: str, kwargs: dict[str, Any]) -> None:
    encoder = small_encoder(name, **kwargs).train()
    x, mask = batch([5, 1, 0], 5)
    out = encoder(x, mask)
    assert torch.isfinite(out.tokens).all() and torch.isfinite(out.pooled).all()
    assert torch.all(out.tokens[2] == 0)


@pytest.mark.parametrize(("name", "kwargs"), VARIANTS)
def test_every_parameter_gets_a_gradient(name: str, kwargs: dict[str, Any]) -> None:
    encoder = small_encoder(name, **kwargs).train()
    # 12 tokens at the default r = 4 give Bi-BloSAN three full blocks: with fewer, its strict
    # inter-block masks leave each block at most one key, whose softmax weight is constant, and
    # a one-token last block has v = 0 as a query (zero gradients either way).
    x, mask = batch([12, 2, 5], 12)
    out = encoder(x, mask)
    (out.pooled.square().sum() + out.tokens.square().sum()).backward()
    for param_name, param in encoder.named_parameters():
        assert param.grad is not None, f"{name}.{param_name} got no gradient"
        assert torch.isfinite(param.grad).all(), f"{name}.{param_name} has a non-finite gradient"
        if param.ndim >= 2:
            assert param.grad.abs().sum() > 0, f"{name}.{param_name} has an all-zero gradient"


@pytest.mark.parametrize(("name", "kwargs"), VARIANTS)
def test_padding_invariance(name: str, kwargs: dict[str, Any]) -> None:
    """In eval mode, a sentence padded to different lengths gives the same outputs."""
    encoder = small_encoder(name, **kwargs).eval()
    x, mask = batch([5], 5, seed=1)
    reference = encoder(x, mask)
    for max_len, seed in [(9, 2), (17, 3)]:
        other_x, other_mask = batch([5, max_len, 3], max_len, seed=seed)
        other_x[0, :5] = x[0]  # same real tokens, different garbage in the padding
        out = encoder(other_x, other_mask)
        torch.testing.assert_close(out.pooled[0], reference.pooled[0], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(out.tokens[0, :5], reference.tokens[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(("name", "kwargs"), VARIANTS)
def test_bf16_autocast_forward_is_finite(name: str, kwargs: dict[str, Any]) -> None:
    encoder = small_encoder(name, **kwargs).eval()
    x, mask = batch([6, 1, 3], 6)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = encoder(x, mask)
    assert torch.isfinite(out.tokens.float()).all() and torch.isfinite(out.pooled.float()).all()


@pytest.mark.parametrize(("name", "kwargs"), VARIANTS)
def test_default_build_uses_paper_sizes(name: str, kwargs: dict[str, Any]) -> None:
    encoder = build_encoder(name, **kwargs)
    assert encoder.input_dim == 300
    assert encoder.output_dim >= 300
