"""How many values a forward reads from the device (each a host sync on a GPU), per encoder:
the numbers docs/encoders.md states (Chunked tanh attention, No tanh per element), on the CPU
(where a read is a load from memory, no sync) and on a device where a read is a sync.

Counted with a ``TorchFunctionMode`` on every call that copies a value to the host
(``Tensor.__bool__``, ``item``, ``__float__``, ``__int__``, ``__index__``, ``tolist``, ``cpu``,
``numpy``). Outside tester (issue 57): the docs said "one value read from the device, the only
one of a forward"; DiSAN's chunked forward read 2, Bi-BloSAN's 4, MTSA's 1, on every device.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch.overrides import TorchFunctionMode

from encoders import build_encoder
from encoders.layers import compiled_tiles
from encoders.registry import builder_accepts, list_encoders

HOST_READS = {"__bool__", "item", "__float__", "__int__", "__index__", "tolist", "cpu", "numpy"}

# reads per forward: one per chunked tanh attention (whether its pre-activations are within the
# product form's bound) and MTSA's one (whether any sentence's source2token spread is too wide)
READS_PER_FORWARD = {
    ("disan", "chunked"): 2,  # the forward and the backward DiSA block
    ("disan_nodir", "chunked"): 2,
    ("bi_blosan", "chunked"): 4,  # intra- and inter-block attention, each direction
    ("bi_blosan_no_local", "chunked"): 4,
    ("bi_blosan_no_global", "chunked"): 2,
    ("mtsa", ""): 1,
    ("mtsa_no_masks", ""): 1,
    ("mtsa_no_t2t", ""): 1,
}
# on a device other than the CPU the chunked attention's tiles take the tanh form, exact at every
# magnitude (no bound to check); MTSA's split of its batch by spread still needs the host
READS_PER_FORWARD_OFF_THE_CPU = {("mtsa", ""): 1, ("mtsa_no_masks", ""): 1, ("mtsa_no_t2t", ""): 1}
TANH_ENCODERS = {"disan", "disan_nodir", "bi_blosan", "bi_blosan_no_local", "bi_blosan_no_global"}
VARIANTS = [
    (name, impl)
    for name in list_encoders()
    for impl in (("chunked", "naive") if name in TANH_ENCODERS else ("",))
]


class HostReads(TorchFunctionMode):
    """Counts the calls of :data:`HOST_READS` made inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.count: collections.Counter[str] = collections.Counter()

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = getattr(func, "__name__", "")
        if name in HOST_READS:
            self.count[name] += 1
        return func(*args, **(kwargs or {}))


def build(name: str, impl: str) -> torch.nn.Module:
    options: dict[str, Any] = {"attention_impl": impl} if impl else {}
    if builder_accepts(name, "hidden_dim"):
        options["hidden_dim"] = 16
    torch.manual_seed(0)
    return build_encoder(name, input_dim=16, **options)


@pytest.mark.slow  # 24 encoder variants, about 1 to 50 s each under load
@pytest.mark.parametrize(("name", "impl"), VARIANTS)
@given(batch=st.integers(1, 4), length=st.integers(2, 40), padded=st.integers(0, 40))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_forward_reads_the_documented_number_of_values_and_backward_none(
    name: str, impl: str, batch: int, length: int, padded: int
) -> None:
    model = build(name, impl)
    x = torch.randn(batch, length, 16, requires_grad=True)
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[0, max(1, length - padded) :] = False
    model(x, mask).pooled.sum().backward()  # first call: the tiles' probe, lazy set-up
    with HostReads() as reads:
        pooled = model(x, mask).pooled.sum()
        forward = sum(reads.count.values())
        reads.count.clear()
        pooled.backward()
        backward = sum(reads.count.values())
    assert forward == READS_PER_FORWARD.get((name, impl), 0)
    assert backward == 0


@pytest.mark.parametrize("name", ["disan", "bi_blosan", "mtsa"])
def test_off_the_cpu_a_forward_reads_no_value_but_mtsa_s_split_and_keeps_the_numbers(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Issue 57.6: a forward on a GPU read one value per chunked attention (DiSAN 2, Bi-BloSAN
    4), a sync each, to choose the product or the tanh form by magnitude. A device other than
    the CPU is simulated on the CPU (``products_on`` false; its compiled tiles are torch.compile's,
    not run here, so the eager tiles): no read, and the float64 outputs and input gradients of
    the CPU's product form within 1e-10, also at pre-activations past the product form's bound."""
    impl = "" if name == "mtsa" else "chunked"
    model = build(name, impl).double().eval()  # no dropout: the same function twice
    for scale in (1.0, 300.0):  # pre-activations past float32's bound 22.2 at 300
        x = (scale * torch.randn(3, 11, 16, dtype=torch.float64)).requires_grad_()
        mask = torch.ones(3, 11, dtype=torch.bool)
        mask[1, 7:] = False
        on_cpu = model(x, mask).pooled
        expected = [on_cpu.detach(), *torch.autograd.grad(on_cpu.sum(), x)]
        with monkeypatch.context() as patch:
            patch.setattr(compiled_tiles, "products_on", lambda device: False)
            patch.setattr(compiled_tiles, "available", lambda device: False)
            with HostReads() as reads:
                pooled = model(x, mask).pooled
            found = [pooled.detach(), *torch.autograd.grad(pooled.sum(), x)]
        assert sum(reads.count.values()) == READS_PER_FORWARD_OFF_THE_CPU.get((name, impl), 0)
        for got, wanted in zip(found, expected, strict=True):
            torch.testing.assert_close(got, wanted, atol=1e-10, rtol=1e-10)
