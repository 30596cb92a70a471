"""An encoder's ``memory_by_shape`` declaration (``register_encoder``), which lets ``fit`` leave
out a training step whose shape a measured one covers (docs/training.md): a built-in declares
it only where its code takes every size and branch from its inputs' shape, checked here by
drawing values. Issue 54, outside check B, item 2: MTSA's split by spread took 840.6 MB on a
step of a [16, 60] shape measured at 84.8 MB, and a plugin's ``x[mask]`` 231.9 MB for 168.2."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode

from encoders import build_encoder, register_encoder, registry
from encoders.registry import builder_accepts, encoder_entry, list_encoders
from tests.encoders.test_host_reads import TANH_ENCODERS

BUILT_IN = [name for name in list_encoders() if encoder_entry(name).source.kind == "built-in"]
VARIANTS = [
    (name, impl)
    for name in BUILT_IN
    for impl in (
        ("chunked", "naive")
        if name in TANH_ENCODERS
        else ("fast", "tensor")
        if name.startswith("mtsa")
        else ("",)
    )
]
CPU = torch.device("cpu")


def build(name: str, impl: str) -> torch.nn.Module:
    options: dict[str, Any] = {"attention_impl": impl} if impl else {}
    if builder_accepts(name, "hidden_dim"):
        options["hidden_dim"] = 8
    torch.manual_seed(0)
    return build_encoder(name, input_dim=6, **options)


class _Sizes(TorchDispatchMode):
    """Every operator a step runs, with the sizes and dtypes of what it returns."""

    def __init__(self) -> None:
        super().__init__()
        self.trace: list[tuple[str, tuple]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        outputs = out if isinstance(out, tuple | list) else (out,)
        sizes = tuple((tuple(t.shape), t.dtype) for t in outputs if isinstance(t, torch.Tensor))
        self.trace.append((str(func), sizes))
        return out


def _step_sizes(model: torch.nn.Module, x: torch.Tensor, lengths: list[int]) -> list:
    """The operators of a training step's forward and backward, with their outputs' sizes."""
    mask = torch.arange(x.shape[1]) < torch.tensor(lengths)[:, None]
    x = x.clone().requires_grad_()
    model.zero_grad(set_to_none=True)  # each step makes its gradients afresh
    torch.manual_seed(1)  # the same dropout masks
    with _Sizes() as sizes:
        out = model(x, mask)
        (out.tokens.sum() + out.pooled.sum()).backward()
    return sizes.trace


def test_every_registered_encoder_says_whether_its_memory_follows_from_shapes() -> None:
    """The built-ins that declare it, on the CPU; a plugin declares nothing unless it says so."""
    declared = {
        (name, impl) for name, impl in VARIANTS
        if encoder_entry(name).memory_by_shape(build(name, impl), CPU)
    }  # fmt: skip
    undeclared = set(VARIANTS) - declared
    assert undeclared == {
        *((name, "chunked") for name in TANH_ENCODERS),  # the tile form by magnitude
        *((name, "fast") for name in ("mtsa", "mtsa_no_masks", "mtsa_no_t2t")),  # the split
    }
    assert all(  # off the CPU the chunked attention takes the tanh form, whatever the values
        encoder_entry(name).memory_by_shape(build(name, "chunked"), torch.device("cuda"))
        for name in TANH_ENCODERS
    )

    def build_plugin(input_dim: int = 6) -> torch.nn.Module:
        return build("multi_cnn", "")

    register_encoder("memory_by_shape_plugin", paper="a test's")(build_plugin)
    try:
        entry = encoder_entry("memory_by_shape_plugin")
        assert not entry.memory_by_shape(build_plugin(), CPU)
    finally:
        del registry._REGISTRY["memory_by_shape_plugin"]


DECLARED = [
    (name, impl) for name, impl in VARIANTS
    if encoder_entry(name).memory_by_shape(build(name, impl), CPU)
]  # fmt: skip


@pytest.mark.parametrize(("name", "impl"), DECLARED)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), batch=st.integers(1, 5), length=st.integers(1, 24))
def test_a_declared_encoder_runs_the_same_sizes_whatever_its_inputs_values(
    name: str, impl: str, data: st.DataObject, batch: int, length: int
) -> None:
    """Two steps of one shape, of drawn magnitudes (up to 1e4: past the chunked attention's
    bound and MTSA's spread limit) and drawn sentence lengths: the same operators return the
    same sizes, so the step's memory is the same."""
    model = build(name, impl).train()
    if name == "hrchy_cnn" or name == "multi_cnn":
        length = max(length, 5)  # the widest kernel
    traces = []
    for seed in range(2):
        scale = data.draw(st.sampled_from([1e-3, 1.0, 30.0, 1e4]))
        lengths = data.draw(st.lists(st.integers(1, length), min_size=batch, max_size=batch))
        x = scale * torch.randn(batch, length, 6, generator=torch.Generator().manual_seed(seed))
        traces.append(_step_sizes(model, x, lengths))
    assert traces[0] == traces[1]


@pytest.mark.slow  # the chunked attention's compiled tiles
@pytest.mark.parametrize(
    ("name", "impl", "scale"),
    [("disan", "chunked", 1e3), ("bi_blosan", "chunked", 1e3), ("mtsa", "fast", 1e4)],
)
def test_an_undeclared_built_in_takes_other_sizes_at_other_values(
    name: str, impl: str, scale: float
) -> None:
    """Why they do not declare it: at one shape, large inputs switch the chunked attention to
    eager tiles of the tanh form and MTSA's widely spread sentences to its tensor form."""
    model = build(name, impl).train()
    x = torch.randn(3, 12, 6, generator=torch.Generator().manual_seed(0))
    assert _step_sizes(model, x, [12, 7, 3]) != _step_sizes(model, scale * x, [12, 7, 3])
