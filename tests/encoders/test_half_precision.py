"""The papers' self-attention encoders under fp16 autocast (``sanbench profile --dtype fp16``):
finite outputs and gradients, also with pre-activations far from 0, at widths up to the
defaults."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch.nn import functional as F
from torch.utils._python_dispatch import TorchDispatchMode

from encoders import build_encoder
from encoders.models.mtsa import T2T_SCALES

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


FP16_MAX = torch.finfo(torch.float16).max
# the drawn step's encoders, each attention both ways; multi_head's attention without dropout
# (torch's fused attention then: its logits are read from q and k)
DRAWN_ENCODERS = [
    *(("disan", {"attention_impl": impl}) for impl in ("naive", "chunked")),
    *(("bi_blosan", {"attention_impl": impl}) for impl in ("naive", "chunked")),
    ("mtsa", {}),
    ("mpsan", {}),
    ("multi_head", {"attn_dropout": 0.0}),
]


# fp16's spacing is 1 from 1,024 on (2 from 2,048): a softmax whose logits reach it is no longer
# float32's in fp16 (a logit rounded by up to half a unit scales its weight by up to e^0.5)
LOGIT_BOUND = 1024.0
aten = torch.ops.aten
SOFTMAXES = (aten._softmax.default, aten._log_softmax.default, aten._safe_softmax.default)
FUSED_ATTENTION = (aten._scaled_dot_product_flash_attention_for_cpu.default,)
# MTSA takes its softmax by hand (exp over keys, Eq. 10-12); its token2token score
# R = q · kᵀ / √d (Eq. 8) enters as sigma_t(R), sigma_t = log sigmoid (Appendix B)
TOKEN2TOKEN = (aten.log_sigmoid_forward.default,)


class LargestLogit(TorchDispatchMode):
    """The largest finite |logit| a step's softmaxes take: each softmax's input, the scaled
    q · kᵀ of the fused attention, which takes its softmax inside, and MTSA's scaled q · kᵀ
    (its token2token score, the input of its sigma_t)."""

    def __init__(self) -> None:
        super().__init__()
        self.largest = 0.0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        logits = None
        if func in SOFTMAXES or func in TOKEN2TOKEN:
            logits = args[0].detach().float()
        elif func in FUSED_ATTENTION:
            query, key = args[0].detach().float(), args[1].detach().float()
            scale = kwargs.get("scale") or query.shape[-1] ** -0.5
            logits = query @ key.transpose(-1, -2) * scale
        if logits is not None and torch.isfinite(logits).any():
            self.largest = max(self.largest, logits[torch.isfinite(logits)].abs().max().item())
        return func(*args, **kwargs)


def _step(
    name: str, options: dict[str, Any], x: torch.Tensor, mask: torch.Tensor, fp16: bool
) -> tuple[dict[str, torch.Tensor], float]:
    """One training-mode step of a freshly seeded encoder (its dropout masks drawn alike in both
    precisions): its outputs, the gradient of its inputs and of every parameter, in float32
    (fp16 autocast when ``fp16``), and the largest logit of its softmaxes
    (:class:`LargestLogit`)."""
    torch.manual_seed(0)
    encoder = build_encoder(name, input_dim=x.shape[-1], **options).train()
    x = x.clone().requires_grad_()
    logits = LargestLogit()
    with logits:
        with torch.autocast("cpu", dtype=torch.float16, enabled=fp16):
            out = encoder(x, mask)
        weights = torch.randn(out.pooled.shape, generator=torch.Generator().manual_seed(2))
        (out.pooled.float() * weights).sum().backward()
    values = {"tokens": out.tokens.float(), "pooled": out.pooled.float(), "x.grad": x.grad}
    grads = {n: p.grad for n, p in encoder.named_parameters() if p.grad is not None}
    return values | grads, logits.largest


@pytest.mark.slow
@pytest.mark.parametrize(("name", "options"), DRAWN_ENCODERS, ids=lambda value: str(value))
@settings(max_examples=6, deadline=None)
@given(
    hidden=st.integers(1, 75).map(lambda quarter: 4 * quarter),
    input_dim=st.integers(1, 300),
    scale=st.floats(0.1, 30.0),
    lengths=st.lists(st.integers(0, 16), min_size=1, max_size=3),
    draw=st.integers(0, 2**16),
    dropout=st.sampled_from([0.0, 0.25]),
)
@example(hidden=300, input_dim=16, scale=30.0, lengths=[11, 6, 1], draw=1, dropout=0.0)
@example(hidden=300, input_dim=300, scale=10.0, lengths=[16, 9, 1], draw=0, dropout=0.0)
# outside check 54g of #54, item 6 (there with dropout on): multi_head's qkv weight gradient
# non-finite in fp16 while float32's is 1.6e4 at most and every float32 tensor of the step within
# fp16's range; its attention's logits reach 6.0e3 (where fp16's spacing is 4)
@example(hidden=300, input_dim=300, scale=30.0, lengths=[40, 23, 7, 1], draw=0, dropout=0.0)
# CI's draw of 2026-11-30: MTSA's qkv weight gradient non-finite in fp16 (float32's 8.7e3 at most),
# its token2token scores 4.7e3 in float32 (test_mtsa_ci_draw_is_the_logit_bound)
@example(hidden=76, input_dim=146, scale=26.71875, lengths=[15, 0, 0], draw=837, dropout=0.25)
def test_fp16_step_leaves_fp16s_range_only_where_float32_does(
    name: str,
    options: dict[str, Any],
    hidden: int,
    input_dim: int,
    scale: float,
    lengths: list[int],
    draw: int,
    dropout: float,
) -> None:
    """A padded batch (empty rows too) of inputs N(0, scale²), hidden_dim up to the default 300,
    dropout off or on (its masks drawn alike), under fp16 autocast: the outputs, the inputs'
    gradient and each parameter's gradient are finite unless the float32 step's same tensor
    holds a value beyond half of fp16's largest (65504), or a softmax of the float32 step takes
    a logit beyond :data:`LOGIT_BOUND`, where fp16's rounding makes another softmax and so
    another step (multi_head at N(0, 30²): its fp16 step's gradient into the qkv layer is 10x
    float32's). What remains is fp16's range itself (a layer's weight gradient sums x · dy over
    B·L tokens), which a loss scale below 1 brings back. MTSA's fast form gave NaN gradients at
    hidden 300 from N(0, 10²) on (E_S underflowed in fp16 and a denominator went subnormal)."""
    length = max(max(lengths), 1)
    x = scale * torch.randn(
        len(lengths), length, input_dim, generator=torch.Generator().manual_seed(draw)
    )
    mask = torch.arange(length).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    options = {"hidden_dim": hidden, "dropout": dropout, **options}
    half, _ = _step(name, options, x, mask, fp16=True)
    full, largest_logit = _step(name, options, x, mask, fp16=False)
    for key, value in half.items():
        if not torch.isfinite(value).all():
            beyond = full[key].abs().max() >= FP16_MAX / 2
            assert beyond or largest_logit > LOGIT_BOUND, (key, largest_logit)


@pytest.mark.slow
def test_mtsa_ci_draw_is_the_logit_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI's draw of 2026-11-30 (hidden 76, input width 146, N(0, 26.7²), one row of 15 tokens
    beside two empty rows, dropout 0.25, draw 837): MTSA's fp16 qkv weight gradient overflows
    while float32's is 8.7e3 at most. The largest logit of its aten softmaxes is 107 (the
    sentence-level source2token's), but MTSA's own attention takes its softmax by hand and its
    token2token scores R = q · kᵀ / √d reach 4.7e3 in float32: fp16's q and k move R by up to
    3.2 in the 15-token row (median 0.48), R = -32.79 of a near tie becomes -33.34, and the
    gradient into R there is 90.8 instead of -6.8, 13 times float32's largest; the qkv weight
    gradient sums it into 6.5e4 (docs/encoders.md). That is the claim's logit bound, not a bug
    of MTSA: with float32's R (rounded to fp16) in fp16's place, the fp16 step is finite."""
    options = {"hidden_dim": 76, "dropout": 0.25}
    x = 26.71875 * torch.randn(3, 15, 146, generator=torch.Generator().manual_seed(837))
    mask = torch.arange(15).unsqueeze(0) < torch.tensor([15, 0, 0]).unsqueeze(1)
    token2token: list[torch.Tensor] = []

    def recorded(scores: torch.Tensor) -> torch.Tensor:
        token2token.append(scores.detach())
        return F.logsigmoid(scores)

    def float32s(scores: torch.Tensor) -> torch.Tensor:
        return F.logsigmoid(scores + (token2token[0].to(scores.dtype) - scores).detach())

    half, _ = _step("mtsa", options, x, mask, fp16=True)
    monkeypatch.setitem(T2T_SCALES, "log_sigmoid", recorded)
    full, largest_logit = _step("mtsa", options, x, mask, fp16=False)
    assert not torch.isfinite(half["attention.qkv.weight"]).all()
    assert full["attention.qkv.weight"].abs().max() < FP16_MAX / 2
    assert largest_logit > LOGIT_BOUND
    monkeypatch.setitem(T2T_SCALES, "log_sigmoid", float32s)
    with_float32s_scores, _ = _step("mtsa", options, x, mask, fp16=True)
    assert all(torch.isfinite(value).all() for value in with_float32s_scores.values())
