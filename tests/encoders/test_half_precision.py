"""The papers' self-attention encoders under fp16 autocast (``sanbench profile --dtype fp16``):
finite outputs and gradients, also with pre-activations far from 0."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from encoders import build_encoder

# DiSAN's and Bi-BloSAN's tanh attention both ways (tiles of 2: several per sentence), MTSA's
# and MPSAN's softmaxes
ENCODERS = [
    *(("disan", {"attention_impl": impl, "chunk_size": 2}) for impl in ("naive", "chunked")),
    *(("bi_blosan", {"attention_impl": impl, "chunk_size": 2}) for impl in ("naive", "chunked")),
    ("mtsa", {}),
    ("mpsan", {}),
]


@pytest.mark.parametrize("scale", [1.0, 30.0])
@pytest.mark.parametrize(("name", "options"), ENCODERS, ids=lambda value: str(value))
def test_fp16_autocast_training_step_is_finite(
    name: str, options: dict[str, Any], scale: float
) -> None:
    """A training step (dropout on) on a padded batch, inputs N(0, scale²): every output and
    every parameter's gradient finite (fp16 gave NaN gradients in the tanh attention
    before 3b96520)."""
    torch.manual_seed(0)
    encoder = build_encoder(name, input_dim=16, hidden_dim=16, **options).train()
    generator = torch.Generator().manual_seed(1)
    x = scale * torch.randn(3, 11, 16, generator=generator)
    mask = torch.arange(11).unsqueeze(0) < torch.tensor([11, 6, 1]).unsqueeze(1)
    with torch.autocast("cpu", dtype=torch.float16):
        out = encoder(x, mask)
    assert torch.isfinite(out.tokens.float()).all() and torch.isfinite(out.pooled.float()).all()
    weights = torch.randn(out.pooled.shape, generator=generator)
    (out.pooled.float() * weights).sum().backward()
    for parameter_name, parameter in encoder.named_parameters():
        if parameter.grad is not None:
            assert torch.isfinite(parameter.grad).all(), parameter_name
