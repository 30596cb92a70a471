"""The compiled tiles of the chunked tanh attention against the eager tiles, their memory, their
FLOPs, and a machine that cannot compile them."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.profiler import ProfilerActivity, profile

from encoders import build_encoder
from encoders.layers import compiled_tiles, cpu_tiles
from encoders.layers import tanh_attention as tanh_attention_module
from encoders.layers.masking import direction_mask
from encoders.layers.tanh_attention import (
    TILE_SIZES,
    eager_backward_sums,
    eager_forward_sums,
    exp2_scale,
    separable_tile,
    shift_for,
    tanh_attention,
    tanh_tile,
    tile_plan,
    tiles,
)
from harness.measurement.tensor_memory import allocated_peak

pytestmark = pytest.mark.held_out
C = 5.0  # DiSAN Sec. 3.3 and Bi-BloSAN Eq. 9: c = 5
ROOT = Path(__file__).resolve().parents[2]


def tile(n: int, d: int, t: int, k: int, dtype: torch.dtype, seed: int = 0) -> tuple:
    """A tile's A = exp(2a) [n, d, t], B = exp(2b) and v [n, d, k], allowed [n, t, k] (one
    query with no allowed key), g/Z and s [n, d, t]."""
    generator = torch.Generator().manual_seed(seed)
    a, g, s = (torch.randn(n, d, t, generator=generator, dtype=dtype) for _ in range(3))
    b, v = (torch.randn(n, d, k, generator=generator, dtype=dtype) for _ in range(2))
    allowed = torch.rand(n, t, k, generator=generator) < 0.6
    allowed[0, 0] = False
    return torch.exp(2 * a), torch.exp(2 * b), v, allowed, g, s


def eager_sums(
    a: torch.Tensor, b: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
    g: torch.Tensor, s: torch.Tensor,
) -> list[torch.Tensor]:  # fmt: skip
    """The eager tile's five sums (product form), against which the compiled ones are held."""
    shift = shift_for(allowed, 0.0, a.dtype)
    return [
        *eager_forward_sums(separable_tile, a, b, v, shift, C),
        *eager_backward_sums(separable_tile, a, b, v, shift, C, g, s),
    ]


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(2, 3),
    d=st.integers(2, 9),
    t=st.integers(2, 9),
    k=st.integers(2, 40),
    seed=st.integers(0, 2**16),
)
def test_the_compiled_tiles_equal_the_eager_tiles_within_1e_12_in_float64(
    n: int, d: int, t: int, k: int, seed: int
) -> None:
    """At the sizes that take them (:func:`compiled_tiles.fits`; smaller tiles run eagerly)."""
    a, b, v, allowed, g, s = tile(n, d, t, k, torch.float64, seed)
    assert compiled_tiles.fits(a, b)
    args = (a, b, v, allowed, exp2_scale(C))
    compiled = [
        *compiled_tiles.compiled_tile_sums(*args),
        *compiled_tiles.compiled_tile_grads(*args, g, s),
    ]
    expected = eager_sums(a, b, v, allowed, g, s)
    names = ["Σ w v", "Σ w", "Σ_k M", "Σ_q M", "Σ_q w g"]
    for name, found, wanted in zip(names, compiled, expected, strict=True):
        torch.testing.assert_close(found, wanted, atol=1e-12, rtol=1e-12, msg=name)


@pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="no CUDA device here: the compiled tiles' Triton kernels are not checked here",
)
def test_on_cuda_the_triton_tiles_equal_the_eager_tiles() -> None:
    """The same operators on CUDA, where ``torch.compile`` generates Triton kernels of the tanh
    form: they read the pre-activations a, b (not A = exp(2a), B = exp(2b))."""
    a, b, v, allowed, g, s = (t.cuda() for t in tile(3, 40, 16, 300, torch.float64))
    assert compiled_tiles.available("cuda")
    pre_a, pre_b = torch.log(a) / 2, torch.log(b) / 2
    args = (pre_a, pre_b, v, allowed, exp2_scale(C))
    compiled = [
        *compiled_tiles.compiled_tile_sums(*args),
        *compiled_tiles.compiled_tile_grads(*args, g, s),
    ]
    for found, wanted in zip(compiled, eager_sums(a, b, v, allowed, g, s), strict=True):
        assert found.device.type == "cuda"
        torch.testing.assert_close(found, wanted, atol=1e-12, rtol=1e-12)


def test_the_compiled_tiles_run_by_default_and_hold_no_pairwise_tensor() -> None:
    """A tile's inside memory is its outputs: no [N, d, T, K] tensor (3.1 MB here) is written."""
    a, b, v, allowed, g, s = tile(4, 48, 16, 257, torch.float32)
    args = (a, b, v, allowed, exp2_scale(C))
    assert compiled_tiles.available("cpu")
    compiled_tiles.compiled_tile_grads(*args, g, s)  # compiled before measuring
    for call, outputs in (
        (lambda: compiled_tiles.compiled_tile_sums(*args), 2 * a.nbytes),
        (lambda: compiled_tiles.compiled_tile_grads(*args, g, s), a.nbytes + 2 * b.nbytes),
    ):
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            result = call()
        assert allocated_peak(prof) == outputs < 4 * 48 * 16 * 257 * 4
        del result


@pytest.mark.slow
def test_a_machine_without_a_compiler_says_so_once_and_keeps_the_same_numbers(
    tmp_path: Path,
) -> None:
    """No C++ compiler (``CXX`` names none, empty compile cache): one warning, then the eager
    tiles, with the outputs and gradients of the naive form."""
    script = textwrap.dedent(
        """
        import torch
        from encoders.layers.masking import direction_mask
        from encoders.layers.tanh_attention import tanh_attention
        g = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(2, 9, 5, generator=g, dtype=torch.float64, requires_grad=True)
                   for _ in range(3))
        allowed = direction_mask(9, "forward").expand(2, 9, 9)
        for _ in range(2):
            found = []
            for impl in ("chunked", "naive"):
                s = tanh_attention(q, k, v, allowed, 5.0, impl, None, "forward")
                found.append([s, *torch.autograd.grad(s.sum(), [q, k, v])])
            assert all(torch.allclose(a, b, rtol=0, atol=1e-12) for a, b in zip(*found))
        """
    )
    environment = {
        **os.environ,
        "CXX": str(tmp_path / "no-compiler"),
        "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache"),
        "TORCH_EXTENSIONS_DIR": str(tmp_path / "extensions"),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "EagerTilesWarning" in line]
    assert len(warnings) == 1, done.stderr
    assert "cannot be used on cpu" in warnings[0] and "the same function, slower" in warnings[0]


def test_tiles_of_the_measured_size_by_mode_unless_chunk_size_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """chunk_size None: TILE_SIZES for the compiled tiles, inference and training; a given
    chunk_size is kept in both."""
    sizes: list[int] = []

    def spy(direction: str, queries: int, keys: int, chunk_size: int) -> Iterator:
        sizes.append(chunk_size)
        return tiles(direction, queries, keys, chunk_size)

    monkeypatch.setattr(tanh_attention_module, "tiles", spy)
    q = torch.randn(2, 40, 6, requires_grad=True)
    allowed = direction_mask(40, "forward").expand(2, 40, 40)
    for chunk_size in (None, 5):
        with torch.no_grad():
            tanh_attention(q, q, q, allowed, C, "chunked", chunk_size, "forward")
        tanh_attention(q, q, q, allowed, C, "chunked", chunk_size, "forward").sum().backward()
    infer, train = TILE_SIZES[("compiled", "infer")], TILE_SIZES[("compiled", "train")]
    assert sizes == [infer, train, train, 5, 5, 5]


def test_the_tile_plan_names_the_tiles_each_mode_runs() -> None:
    """What a profile row records: the compiled tiles' measured sizes by mode, a given
    chunk_size as it is, nothing for an encoder without a chunked attention."""
    chunked = build_encoder("disan", input_dim=8, hidden_dim=8, attention_impl="chunked")
    sized = build_encoder("bi_blosan", input_dim=8, attention_impl="chunked", chunk_size=3)
    infer, train = TILE_SIZES[("compiled", "infer")], TILE_SIZES[("compiled", "train")]
    assert tile_plan(chunked, "cpu", "infer") == f"compiled tiles of {infer}"
    assert tile_plan(chunked, "cpu", "train") == f"compiled tiles of {train}"
    assert tile_plan(sized, "cpu", "train") == "compiled tiles of 3"
    naive = build_encoder("disan", input_dim=8, hidden_dim=8, attention_impl="naive")
    assert tile_plan(naive, "cpu", "infer") == ""
    assert tile_plan(build_encoder("disan", input_dim=8, hidden_dim=8), "cpu", "infer") == (
        f"compiled tiles of {infer}"
    )  # the encoders' default


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    """The tiles' check runs again in the test, and again after it (its result is cached)."""
    compiled_tiles._probe.cache_clear()
    yield
    compiled_tiles._probe.cache_clear()


def test_a_bug_under_the_tiles_is_raised_not_hidden_behind_the_eager_tiles(
    monkeypatch: pytest.MonkeyPatch, fresh_probe: None
) -> None:
    def broken() -> None:
        raise TypeError("a bug, not a missing compiler")

    monkeypatch.setattr(cpu_tiles, "load", broken)
    with pytest.raises(TypeError, match="a bug"):
        compiled_tiles.available("cpu")


def test_a_failed_build_falls_back_to_the_eager_tiles_with_the_compilers_words(
    monkeypatch: pytest.MonkeyPatch, fresh_probe: None
) -> None:
    def failed() -> None:
        raise cpu_tiles.BuildError("cpu_tiles.cpp:7:1: error: boom")

    monkeypatch.setattr(cpu_tiles, "load", failed)
    with pytest.warns(compiled_tiles.EagerTilesWarning, match="cpu_tiles.cpp:7:1: error: boom"):
        assert not compiled_tiles.available("cpu")


def test_the_cpu_kernel_is_registered_on_the_operators(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dispatcher gives CPU tensors the library's kernel (registered on the operators' CPU
    key as it loads), not the compiled functions of other devices."""
    compiled: list[int] = []
    monkeypatch.setattr(compiled_tiles, "_compiled_call", lambda index, *args: compiled.append(1))
    assert compiled_tiles.available("cpu")
    a, b, v, allowed, g, s = tile(2, 3, 4, 5, torch.float32)
    args = (a, b, v, allowed, exp2_scale(C))
    compiled_tiles.compiled_tile_sums(*args)
    compiled_tiles.compiled_tile_grads(*args, g, s)
    assert compiled == []


def test_each_device_is_probed_on_itself(
    monkeypatch: pytest.MonkeyPatch, fresh_probe: None
) -> None:
    """A probe per device (cuda:1 is not cuda:0); ``cuda`` with no index is the current device
    (what Lightning sets per rank), ``meta`` is this machine's CPU."""
    asked: list[torch.device] = []
    monkeypatch.setattr(compiled_tiles, "tiles_agree", lambda device: asked.append(device) or True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 1)
    for device in ("cuda:1", "cuda", torch.device("cuda", 0), "meta", "cpu", "cuda:1"):
        assert compiled_tiles.available(device)
    assert asked == [torch.device("cuda", 1), torch.device("cuda", 0), torch.device("cpu")]


def test_the_tanh_form_tiles_hold_at_every_magnitude_where_the_product_form_breaks() -> None:
    """Issue 57.6: elsewhere than on the CPU the compiled tiles read the pre-activations a, b
    (``products=False``: t = tanh(a + b)), so no value read chooses a form by magnitude. At
    |a|, |b| ~ 100 (a + b near 0 both ways) A·B is inf·0 in float32, NaN; the tanh form gives the
    eager tanh tile's sums in float64 within 1e-12."""
    a, b, v, allowed, g, s = tile(2, 3, 6, 9, torch.float64)
    a, b = (torch.log(x) / 2 * 50 for x in (a, b))  # pre-activations of spread ~100
    a[0, 0, 0], b[0, 0, 0], allowed[0, 0, 0] = 100.0, -100.0, True  # a + b = 0 for one pair
    args = (a, b, v, allowed, exp2_scale(C))
    found = [
        *compiled_tiles.tile_sums(*args, products=False),
        compiled_tiles.tile_query_grads(*args, g, s, products=False),
        *compiled_tiles.tile_key_grads(*args, g, s, products=False),
    ]
    shift = shift_for(allowed, -C, a.dtype)
    expected = [
        *eager_forward_sums(tanh_tile, a, b, v, shift, C),
        *eager_backward_sums(tanh_tile, a, b, v, shift, C, g, s),
    ]
    for x, y in zip(found, expected, strict=True):
        torch.testing.assert_close(x, y, atol=1e-12, rtol=1e-12)
    products = [torch.exp(2 * x).float() for x in (a, b)]
    assert compiled_tiles.tile_sums(*products, v.float(), allowed, exp2_scale(C))[0].isnan().any()


def test_the_cpu_library_reads_the_product_form_every_other_device_the_tanh_form() -> None:
    assert compiled_tiles.products_on(torch.device("cpu"))
    assert compiled_tiles.products_on(torch.device("meta"))  # the prediction models the CPU
    assert not compiled_tiles.products_on(torch.device("cuda", 1))


@pytest.mark.parametrize("default", [torch.bfloat16, torch.float16, torch.float64])
def test_the_probe_runs_in_float32_whatever_the_default_dtype(
    default: torch.dtype, fresh_probe: None
) -> None:
    """Lightning's ``precision="bf16-true"``/``"16-true"`` sets torch's default dtype: the probe
    of a checkpoint so trained compared bf16 tiles at float32's tolerance and ran the eager
    tiles (outside breaker of issue 57)."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(default)
    try:
        assert compiled_tiles.available("cpu")
    finally:
        torch.set_default_dtype(previous)


def wrapped_by_the_compiler(error: Exception) -> Exception:
    """``error`` as torch.compile raises it from inside its backend: ``BackendCompilerFailed``
    holding it (``inner_exception``), raised ``from None``."""
    from torch._dynamo.exc import BackendCompilerFailed

    try:
        try:
            raise error
        except Exception as inner:
            raise BackendCompilerFailed(lambda: None, inner, None) from None
    except BackendCompilerFailed as wrapped:
        return wrapped


@pytest.mark.parametrize(
    "error",
    [
        torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 MiB"),
        torch.AcceleratorError("CUDA error: an illegal memory access was encountered"),
        wrapped_by_the_compiler(torch.OutOfMemoryError("CUDA out of memory.")),
    ],
    ids=["oom", "sticky-cuda-error", "oom-inside-the-compiler"],
)
def test_an_oom_or_a_cuda_error_in_the_probe_is_raised_and_not_cached_as_no_compiler(
    error: Exception, monkeypatch: pytest.MonkeyPatch, fresh_probe: None
) -> None:
    """Outside tester (issue 57): off the CPU the probe took every RuntimeError for "cannot
    compile", torch.OutOfMemoryError and torch.AcceleratorError (a sticky CUDA error) included:
    it returned False and cached it, so the point was no ``oom`` row, the worker was not
    restarted, and the rest of the process ran the eager tiles. They reach the caller (the
    device's own error, not the compiler's wrapper), and the next call probes again."""
    calls: list[torch.device] = []

    def fails(device: torch.device) -> bool:
        calls.append(device)
        raise error

    monkeypatch.setattr(compiled_tiles, "tiles_agree", fails)
    raised = getattr(error, "inner_exception", error)
    for _ in range(2):
        with pytest.raises(type(raised)) as caught:
            compiled_tiles.available("cuda:1")
        assert caught.value is raised
    assert calls == [torch.device("cuda", 1)] * 2


def test_a_compiler_that_fails_off_the_cpu_still_falls_back_to_the_eager_tiles(
    monkeypatch: pytest.MonkeyPatch, fresh_probe: None
) -> None:
    def no_compiler(device: torch.device) -> bool:
        raise wrapped_by_the_compiler(RuntimeError("Cannot find a working triton installation"))

    monkeypatch.setattr(compiled_tiles, "tiles_agree", no_compiler)
    with pytest.warns(compiled_tiles.EagerTilesWarning, match="working triton"):
        assert not compiled_tiles.available("cuda:1")
