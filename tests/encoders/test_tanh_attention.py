"""The tanh attention kernel: naive and chunked against the definition and each other."""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from encoders import build_encoder
from encoders.layers import compiled_tiles
from encoders.layers.masking import direction_key_span, direction_mask
from encoders.layers.tanh_attention import (
    check_impl,
    recording_tiles,
    separable_bound,
    separable_tile,
    tanh_attention,
    tanh_tile,
    tile_inputs,
    tile_plan,
)

C = 5.0  # DiSAN Sec. 3.3 and Bi-BloSAN Eq. 9: c = 5
DIRECTIONS = ["forward", "backward", "nodiag", "all"]


def inputs(
    lengths: list[int], max_len: int, dim: int, direction: str, dtype: torch.dtype, seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """query, key, values [N, L, d] (requiring grad, garbage at padding) and allowed [N, L, L]."""
    generator = torch.Generator().manual_seed(seed)
    shape = (len(lengths), max_len, dim)
    q, k, v = (3 * torch.randn(shape, generator=generator, dtype=dtype) for _ in range(3))
    mask = torch.arange(max_len).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    allowed = direction_mask(max_len, direction) & mask.unsqueeze(1)
    return q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), allowed


def output_and_grads(
    impl: str,
    chunk_size: int,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    allowed: torch.Tensor,
    direction: str = "all",
) -> list[torch.Tensor]:
    s = tanh_attention(q, k, v, allowed, C, impl, chunk_size, direction)
    weights = torch.linspace(-1, 1, s.numel(), dtype=s.dtype).view_as(s)  # every output matters
    return [s.detach(), *torch.autograd.grad((s * weights).sum(), [q, k, v])]


def definition(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed) -> torch.Tensor:
    """s_j = sum_i softmax_i(c tanh(q_j + k_i)) v_i over allowed i, per feature; 0 if none."""
    rows = []
    for n in range(q.shape[0]):
        for j in range(q.shape[1]):
            keys = allowed[n, j].nonzero().flatten()
            if len(keys) == 0:
                rows.append(torch.zeros_like(q[n, j]))
                continue
            probs = torch.softmax(C * torch.tanh(q[n, j] + k[n, keys]), dim=0)  # [keys, d]
            rows.append((probs * v[n, keys]).sum(0))
    return torch.stack(rows).view_as(q)


@pytest.mark.parametrize("impl", ["naive", "chunked"])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_both_impls_follow_the_definition(impl: str, direction: str) -> None:
    q, k, v, allowed = inputs([7, 1, 0, 4], 7, 3, direction, torch.float64)
    expected = definition(q.detach(), k.detach(), v.detach(), allowed)
    torch.testing.assert_close(tanh_attention(q, k, v, allowed, C, impl, 3, direction), expected)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize(
    ("lengths", "max_len", "chunk_size"),
    [
        ([11, 1, 0, 6], 11, 4),  # padding, a 1-token row, an empty row, L not divisible by 4
        ([11, 9], 11, 1),  # one query per tile
        ([5, 3], 5, 8),  # one tile larger than L
        ([1, 1, 0], 1, 3),  # length 1: nothing to attend to under any direction but "all"
    ],
)
def test_chunked_equals_naive_in_fp32(
    direction: str, lengths: list[int], max_len: int, chunk_size: int
) -> None:
    """Output and the gradients of query, key and values agree within 1e-5."""
    q, k, v, allowed = inputs(lengths, max_len, 6, direction, torch.float32)
    naive = output_and_grads("naive", chunk_size, q, k, v, allowed)
    chunked = output_and_grads("chunked", chunk_size, q, k, v, allowed, direction)
    for name, a, b in zip(["s", "dq", "dk", "dv"], naive, chunked, strict=True):
        torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5, msg=name)
        assert torch.isfinite(b).all(), name


@settings(max_examples=25, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 40), min_size=1, max_size=3),
    chunk_size=st.integers(1, 9),
    mask_kind=st.sampled_from([*DIRECTIONS, "blocks", "random"]),
    seed=st.integers(0, 2**16),
)
def test_chunked_equals_naive_within_1e_10_in_float64(
    lengths: list[int], chunk_size: int, mask_kind: str, seed: int
) -> None:
    """Any lengths, tile size and mask (DiSAN's directions, Bi-BloSAN-like local blocks, any
    pattern): output and input gradients within 1e-10, so the key spans a tile skips held
    nothing."""
    max_len = max(max(lengths), 1)
    direction = mask_kind if mask_kind in DIRECTIONS else "all"
    q, k, v, allowed = inputs(lengths, max_len, 3, direction, torch.float64, seed)
    positions = torch.arange(max_len)
    if mask_kind == "blocks":  # keys of the query's own block of 5
        allowed = allowed & (positions.unsqueeze(1) // 5 == positions.unsqueeze(0) // 5)
    if mask_kind == "random":
        generator = torch.Generator().manual_seed(seed)
        allowed = allowed & (torch.rand(allowed.shape, generator=generator) < 0.3)
    naive = output_and_grads("naive", chunk_size, q, k, v, allowed)
    chunked = output_and_grads("chunked", chunk_size, q, k, v, allowed, direction)
    for name, a, b in zip(["s", "dq", "dk", "dv"], naive, chunked, strict=True):
        torch.testing.assert_close(b, a, atol=1e-10, rtol=0, msg=name)


@pytest.mark.parametrize("direction", ["forward", "backward", "nodiag"])
@pytest.mark.parametrize("impl", ["naive", "chunked"])
def test_a_mask_that_lets_through_what_the_direction_forbids_attends_the_directions_keys(
    direction: str, impl: str
) -> None:
    """A padding-only mask with a direction (on e81e6e0 the chunked attention then silently
    gave a result 2.4 away from the naive one; then it was refused, with a read of the mask's
    values in every forward): both attend the keys that the mask and the direction allow."""
    q, k, v, allowed = inputs([9, 5, 0], 9, 4, direction, torch.float64)
    padding_only = inputs([9, 5, 0], 9, 4, "all", torch.float64)[3]
    expected = definition(q.detach(), k.detach(), v.detach(), allowed)
    found = tanh_attention(q, k, v, padding_only, C, impl, 3, direction)
    torch.testing.assert_close(found, expected)


class ScalarReads(TorchDispatchMode):
    """Counts the operators that copy a tensor's value to the host (``.item()``, ``bool()``,
    ``float()`` of a tensor): on a GPU each waits for every kernel queued before it."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._local_scalar_dense.default:
            self.count += 1
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize(("impl", "reads"), [("naive", 0), ("chunked", 1)])
def test_a_forward_reads_one_value_from_the_device_at_most(
    impl: str, reads: int, direction: str
) -> None:
    """naive: none; chunked: one, whether |a| and |b| are within the product form's bound
    (which tiles run). Before 3b96520 a mask's check read one more in each, and the bound one per
    tensor."""
    q, k, v, allowed = inputs([9, 5, 0], 9, 4, direction, torch.float32)
    with ScalarReads() as counted:
        tanh_attention(q, k, v, allowed, C, impl, 3, direction)
    assert counted.count == reads


def test_half_precision_takes_the_compiled_tiles_where_float32_does() -> None:
    """fp16 autocast with |a| ~ 3 (past fp16's own product-form bound, 2.77, within float32's,
    22.2): the compiled tiles, as in float32, since the tiles compute in float32 (before 3b96520
    the eager tanh tiles ran while the profile's row said "compiled")."""
    if not compiled_tiles.available("cpu"):
        pytest.skip("this machine cannot compile the compiled tiles")
    q, k, v, allowed = inputs([12, 9], 12, 4, "forward", torch.float16)
    assert max(q.abs().max(), k.abs().max()) > separable_bound(torch.float16)
    with FlopCounterMode(display=False) as counter, torch.autocast("cpu", dtype=torch.float16):
        tanh_attention(q, k, v, allowed, C, "chunked", 4, "forward").sum().backward()
    counts = {str(op) for op in counter.get_flop_counts()["Global"]}
    assert {"sanbench.tanh_tile_sums", "sanbench.tanh_tile_grads"} <= counts
    assert not {"sanbench.eager_tile_sums", "sanbench.eager_tile_grads"} & counts


@pytest.mark.parametrize(
    ("batch", "magnitude", "chunk_size", "ran"),
    [
        (2, 1.0, 4, "compiled tiles of 4"),
        (1, 1.0, 4, "eager tiles of 4"),  # one sentence: tiles with a size below 2
        (2, 1e3, 4, "eager tiles of 4"),  # pre-activations past the bound
        # the first tile of the forward mask and the last of the backward one: one key each
        (2, 1.0, 2, "compiled tiles of 2 (97.2% of pairs), eager tiles of 2 (2.78%)"),
    ],
)
def test_the_tile_plan_says_which_tiles_ran(
    batch: int, magnitude: float, chunk_size: int, ran: str
) -> None:
    """The plan of a recorded step names the tiles that ran, each kind with its share of the
    (query, key, feature) triples when both ran; without a record, the tiles' kind on this
    machine and the size (before 3b96520 always that, whatever ran)."""
    model = build_encoder("disan", input_dim=8, hidden_dim=8, chunk_size=chunk_size)
    x = magnitude * torch.randn(batch, 12, 8, generator=torch.Generator().manual_seed(0))
    with recording_tiles() as record:
        model(x, torch.ones(batch, 12, dtype=torch.bool))
    if not compiled_tiles.available("cpu"):
        ran = f"eager tiles of {chunk_size}"
    assert tile_plan(model, "cpu", "infer", record) == ran
    kind = "compiled" if compiled_tiles.available("cpu") else "eager"
    assert tile_plan(model, "cpu", "infer", Counter()) == f"{kind} tiles of {chunk_size}"


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("length", [1, 2, 7, 16])
@pytest.mark.parametrize("chunk_size", [1, 3, 4, 20])
def test_a_tiles_key_span_holds_every_key_its_queries_may_attend_and_no_more(
    direction: str, length: int, chunk_size: int
) -> None:
    allowed = direction_mask(length, direction)
    for start in range(0, length, chunk_size):
        rows = slice(start, start + chunk_size)
        span = direction_key_span(direction, rows, length)
        keys = allowed[rows].any(0).nonzero().flatten().tolist()
        assert list(range(length))[span] == (list(range(keys[0], keys[-1] + 1)) if keys else [])


def test_chunked_gradients_pass_gradcheck() -> None:
    q, k, v, allowed = inputs([6, 2, 0], 6, 2, "forward", torch.float64)
    assert torch.autograd.gradcheck(
        lambda q, k, v: tanh_attention(q, k, v, allowed, C, "chunked", 4, "forward"), (q, k, v)
    )


def test_empty_rows_give_zero_outputs_and_zero_gradients() -> None:
    q, k, v, allowed = inputs([4, 0], 4, 3, "forward", torch.float32)
    s, dq, dk, dv = output_and_grads("chunked", 2, q, k, v, allowed, "forward")
    assert torch.all(s[0, 0] == 0) and torch.all(s[1] == 0)  # first token, empty sentence
    assert torch.all(dq[1] == 0) and torch.all(dk[1] == 0) and torch.all(dv[1] == 0)


def test_chunked_keeps_no_pairwise_feature_tensor_for_backward() -> None:
    """Saved for backward: [N, L, d]-sized statistics and the bool mask, never [N, L, L, d]."""
    n, length, dim = 2, 12, 5
    q, k, v, allowed = inputs([12, 7], length, dim, "backward", torch.float32)
    sizes: dict[str, list[int]] = {"naive": [], "chunked": []}
    for impl, found in sizes.items():

        def pack(tensor: torch.Tensor, found: list[int] = found) -> torch.Tensor:
            found.append(tensor.numel())
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            tanh_attention(q, k, v, allowed, C, impl, 4)
    assert max(sizes["naive"]) == n * length * length * dim
    assert max(sizes["chunked"]) == max(n * length * dim, n * length * length)


def test_huge_pre_activations_stay_exact() -> None:
    """The logits lie in [-c, c]: subtracting c instead of a row maximum loses nothing."""
    q, k, v, allowed = inputs([5], 5, 3, "nodiag", torch.float64)
    q, k = q.detach() * 1e4, k.detach() * 1e4
    expected = definition(q, k, v.detach(), allowed)
    torch.testing.assert_close(tanh_attention(q, k, v, allowed, C, "chunked", 2), expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_separable_tile_equals_the_tanh_tile_up_to_its_bound(dtype: torch.dtype) -> None:
    """exp(2a)·exp(2b) replaces tanh(a + b): the same weights and 1 - tanh² for pre-activations
    from 0 to the bound (tanh saturated both ways, products near the dtype's range), no NaN."""
    bound = separable_bound(dtype)
    grid = torch.linspace(-bound, bound, 41, dtype=torch.float64)
    a = grid.view(1, 1, -1)  # [N=1, d=1, T=41] queries
    b = grid.view(1, 1, -1)  # 41 keys
    shift = torch.zeros(1, 1, 41, 41, dtype=torch.float64)
    w_tanh, slope_tanh = tanh_tile(a, b, shift - C, C, True)
    w_sep, slope_sep = separable_tile(
        torch.exp(2 * a).to(dtype), torch.exp(2 * b).to(dtype), shift.to(dtype), C, True
    )
    assert torch.isfinite(w_sep).all() and torch.isfinite(slope_sep).all()
    tolerance = 1e-12 if dtype == torch.float64 else 1e-5
    torch.testing.assert_close(w_sep.double(), w_tanh, atol=tolerance, rtol=tolerance)
    torch.testing.assert_close(slope_sep.double(), slope_tanh, atol=tolerance, rtol=tolerance)


def test_pre_activations_past_the_bound_take_the_tanh_tile() -> None:
    q, k, v, allowed = inputs([6, 3], 6, 2, "forward", torch.float32)
    moderate, huge = q.detach(), q.detach() * 100  # |q| up to ~10, then ~1000
    assert tile_inputs(moderate, k.detach(), C)[2] is separable_tile
    assert tile_inputs(huge, k.detach(), C)[2] is tanh_tile
    naive = tanh_attention(huge, k, v, allowed, C, "naive")
    chunked = tanh_attention(huge, k, v, allowed, C, "chunked", 4, "forward")
    torch.testing.assert_close(chunked, naive, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(
    ("impl", "chunk_size", "message"),
    [("flash", 8, "attention_impl"), ("chunked", 0, "chunk_size"), ("chunked", 2.0, "chunk_size")],
)
def test_bad_options_fail_with_a_clear_message(impl: str, chunk_size: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_impl(impl, chunk_size)


@pytest.mark.slow
def test_compiled_chunked_disan_keeps_the_memory_bound_of_eager() -> None:
    """Traced whole into the compiled model, the tile loop was unrolled and the compiled
    backward kept every tile (DiSAN [8, 256, 300] training: 1580 MB against 137 MB eager). The
    compiled model now runs the loop eagerly and compiles only the tile body."""
    from encoders import build_encoder
    from harness.measurement.profiled_step import Point, make_step, synthetic_batch
    from harness.measurement.tensor_memory import memory_step

    point = Point("disan", 128, "train", 2, 32)
    peaks = []
    for compiled in (False, True):
        torch.manual_seed(0)
        model = build_encoder("disan", input_dim=32, attention_impl="chunked")
        x, mask = synthetic_batch(point, torch.device("cpu"))
        step = make_step(torch.compile(model) if compiled else model, x, mask, "train", "fp32")
        step()  # compiles
        model.zero_grad(set_to_none=True)
        peaks.append(memory_step(step, torch.device("cpu"), 0)[0])
    eager, compiled = peaks
    full_square = 2 * 300 * 128 * 128 * 4  # one [N, d, L, L] fp32 tensor (d = 300): 37.5 MiB
    assert compiled <= 1.05 * eager < full_square


HALF_EPS = {torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}  # the dtypes' unit of rounding


@settings(max_examples=30, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 24), min_size=1, max_size=3),
    magnitude=st.floats(0.1, 60.0),
    mask_kind=st.sampled_from(DIRECTIONS),
    impl=st.sampled_from(["naive", "chunked"]),
    chunk_size=st.sampled_from([None, 1, 3, 8]),
    dtype=st.sampled_from([torch.float16, torch.bfloat16]),
    seed=st.integers(0, 2**16),
)
def test_half_precision_autocast_is_finite_and_within_its_rounding(
    lengths: list[int],
    magnitude: float,
    mask_kind: str,
    impl: str,
    chunk_size: int | None,
    dtype: torch.dtype,
    seed: int,
) -> None:
    """Under fp16 and bf16 autocast (a, b, v in the autocast dtype, as the projections give
    them), |a|, |b| up to ~60 and padded rows: a finite output and finite gradients, in the
    inputs' dtype, within that dtype's rounding of the float64 attention of the same rounded
    inputs (fp16 gave NaN gradients before 3b96520: chunked in 3 of 18 trials at |a| ~ 30,
    naive in 1 of 18 at |a| ~ 1 and 6 at ~ 30, where Z_q² or g / Z_q left fp16's range)."""
    max_len = max(max(lengths), 1)
    generator = torch.Generator().manual_seed(seed)
    shape = (len(lengths), max_len, 4)
    q, k = (magnitude * torch.randn(shape, generator=generator) for _ in "qk")
    v, g = (torch.randn(shape, generator=generator) for _ in "vg")
    q, k, v = (t.to(dtype).requires_grad_() for t in (q, k, v))
    real = torch.arange(max_len).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    allowed = direction_mask(max_len, mask_kind) & real.unsqueeze(1) & real.unsqueeze(2)
    with torch.autocast("cpu", dtype=dtype):
        s = tanh_attention(q, k, v, allowed, C, impl, chunk_size, mask_kind)
    found = [s, *torch.autograd.grad((s.float() * g).sum(), [q, k, v])]
    assert all(t.dtype == dtype for t in found)
    for name, t in zip(["s", "dq", "dk", "dv"], found, strict=True):
        assert torch.isfinite(t).all(), name
    wide = [t.detach().double().requires_grad_() for t in (q, k, v)]
    s64 = tanh_attention(*wide, allowed, C, "naive")
    # the gradient reaching s in the dtype, as backward passes it
    exact = [s64, *torch.autograd.grad((s64 * g.to(dtype).double()).sum(), wide)]
    # each value's own rounding to the dtype, and float32's within the largest term of its sum
    # (|v| for s; c·|g|·|v| for ∂a, ∂b, whose terms c·P·g·(1 - t²)·(v - s) cancel; |g| for ∂v)
    largest_v, largest_g = float(v.detach().abs().max()), float(g.abs().max())
    terms = [largest_v, C * largest_g * largest_v, C * largest_g * largest_v, largest_g]
    for name, got, want, term in zip(["s", "dq", "dk", "dv"], found, exact, terms, strict=True):
        tolerance = HALF_EPS[dtype] * want.abs() + 1e-4 * term
        assert ((got.double() - want).abs() <= tolerance).all(), name
