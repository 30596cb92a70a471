"""A point that fails in the measuring worker: which step failed, and what the sweep does next.

The encoders are plugins of a module written for the test (``sanbench --import``), as a user's
would be: one that takes only sentences of at least 9 tokens (an unpadded ``Conv1d`` of kernel
9), and one whose failure at one length leaves its process unusable, as a sticky CUDA error
(an illegal memory access, a device-side assert) leaves the CUDA context.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.cli import main
from harness.measurement.profiled_step import Point
from harness.profiling.measure import is_oom
from harness.profiling.worker import warmup_points
from reports.profile.data import load_run
from tests.encoders.plugin_fixtures import fresh_registry  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[3]
SMALL = ["--batch-size", "3", "--dim", "16", "--repeats", "3", "--no-progress", "--no-report"]
KERNEL = 9
ILLEGAL_ACCESS = "CUDA error: an illegal memory access was encountered"
ASYNC_LINE = "CUDA kernel errors might be asynchronously reported at some other API call"
PLUGIN = f'''
import torch
from torch import nn

from encoders import Encoder, EncoderOutput, register_encoder

BROKEN = {{"now": False}}


class Unpadded(Encoder):
    """A convolution over time without padding: sentences of at least {KERNEL} tokens; or, when
    ``breaks_at`` is set, a token-wise layer whose call at that length breaks the process."""

    def __init__(self, input_dim: int, hidden_dim: int, breaks_at: int = 0):
        super().__init__()
        self.input_dim = input_dim
        self.token_dim = self.output_dim = hidden_dim
        self.breaks_at = breaks_at
        self.conv = nn.Conv1d(input_dim, hidden_dim, {KERNEL})
        self.proj = nn.Linear(input_dim, hidden_dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        if self.breaks_at:
            if BROKEN["now"] or x.shape[1] == self.breaks_at:
                BROKEN["now"] = True  # every later call fails, as after a sticky CUDA error
                raise RuntimeError("{ILLEGAL_ACCESS}\\n{ASYNC_LINE}")
            tokens = self.proj(x)
        else:
            tokens = self.conv(x.transpose(1, 2)).transpose(1, 2)  # [B, L - {KERNEL - 1}, H]
            tokens = nn.functional.pad(tokens, (0, 0, 0, {KERNEL - 1}))
        tokens = tokens * mask.unsqueeze(-1)
        return EncoderOutput(tokens=tokens, pooled=tokens.sum(1) / mask.sum(1, keepdim=True))


@register_encoder("plug_conv{KERNEL}", paper="a test plugin")
def build_conv(input_dim: int = 16, hidden_dim: int = 8, dropout: float = 0.0):
    return Unpadded(input_dim, hidden_dim)


class BatchOfThree(Encoder):
    """A token-wise layer that takes only batches of at least 3 sentences."""

    def __init__(self, input_dim: int, hidden_dim: int):
        super().__init__()
        self.input_dim, self.token_dim, self.output_dim = input_dim, hidden_dim, hidden_dim
        self.proj = nn.Linear(input_dim, hidden_dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> EncoderOutput:
        if x.shape[0] < 3:
            raise ValueError(f"batch of {{x.shape[0]}} sentences")
        tokens = self.proj(x) * mask.unsqueeze(-1)
        return EncoderOutput(tokens=tokens, pooled=tokens.sum(1) / mask.sum(1, keepdim=True))


@register_encoder("plug_batch3", paper="a test plugin")
def build_batch3(input_dim: int = 16, hidden_dim: int = 8, dropout: float = 0.0):
    return BatchOfThree(input_dim, hidden_dim)


@register_encoder("plug_sticky", paper="a test plugin")
def build_sticky(input_dim: int = 16, hidden_dim: int = 8, dropout: float = 0.0):
    return Unpadded(input_dim, hidden_dim, breaks_at=16)
'''


@pytest.fixture
def plugin(fresh_registry: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    """The plugin module in a folder on this process's path and on its workers'."""
    (fresh_registry / "plug_unpadded.py").write_text(PLUGIN)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    path = [str(fresh_registry), str(ROOT), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    return fresh_registry


def profile(out: Path, encoder: str, lengths: str, *options: str) -> int:
    argv = ["profile", "--import", "plug_unpadded", *SMALL, "--out", str(out)]
    return main([*argv, "--encoders", encoder, "--lengths", lengths, *options])


@pytest.mark.slow
def test_an_encoder_with_a_minimum_length_is_measured_at_every_length_it_takes(
    plugin: Path, tmp_path: Path
) -> None:
    """Issue 54.3: the warm-up ran at [2, 4, dim], so an unpadded Conv1d of kernel 9 failed at
    every length (its prediction ran). Now only L < 9 fails, and its row names the step (the
    last warm-up tried: the point's own shape)."""
    out = tmp_path / "run"
    assert profile(out, f"plug_conv{KERNEL}", "8,9,13") == 1  # L = 8 failed: exit 1
    rows = load_run(out).rows.set_index(["seq_len", "mode"])
    assert set(rows.loc[[9, 13], "status"]) == {"ok"}, rows["message"].to_dict()
    assert (rows.loc[[9, 13], "peak_mem_mb_predicted"] > 0).all()
    for mode in ("infer", "train"):
        failed = rows.loc[(8, mode)]
        assert failed["status"] == "error"
        assert failed["message"].startswith(f"warm-up ({mode}) at [3, 8, 16]: RuntimeError")
        assert f"Kernel size: ({KERNEL})" in failed["message"]


@pytest.mark.slow
def test_a_sticky_device_error_gets_the_next_point_a_fresh_worker(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 57.7: after an error that leaves the device unusable (here faked on the CPU: the
    plugin fails every call after its call at L = 16) the worker was kept, so every later point
    failed. The failed point names its step, and the next runs in a new worker. CUDA's message
    spans two lines: the point's console line and the failure list show its first line with
    the point's name, never the second alone (outside tester of issue 57)."""
    out = tmp_path / "run"
    monkeypatch.setenv("COLUMNS", "400")  # the console wraps no line
    assert profile(out, "plug_sticky", "8,16,32", "--modes", "infer") == 1
    rows = load_run(out).rows.set_index("seq_len")
    assert list(rows["status"]) == ["ok", "error", "ok"], rows["message"].to_dict()
    message = f"infer step: RuntimeError: {ILLEGAL_ACCESS} | {ASYNC_LINE}"
    assert rows.loc[16, "message"] == message
    console = capsys.readouterr()
    lines = (console.out + console.err).splitlines()
    assert not [
        line
        for line in lines
        if line.lstrip().startswith(("CUDA kernel", "sanbench profile: CUDA"))
    ]
    assert any(
        "L=16" in line and f"infer step: RuntimeError: {ILLEGAL_ACCESS}" in line for line in lines
    )


@pytest.mark.parametrize(
    "message",
    [
        "CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
        "cuDNN error: CUDNN_STATUS_ALLOC_FAILED",
        "cuDNN error: CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",  # cuDNN 9
        "cuDNN error: CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
        "CUDA out of memory. Tried to allocate 2.00 GiB",
        "CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate 8589934592 bytes",
    ],
)
def test_is_oom_knows_every_failed_allocation(message: str) -> None:
    assert is_oom(RuntimeError(message))


@pytest.mark.parametrize(
    "message", [ILLEGAL_ACCESS, "CUDNN_STATUS_NOT_SUPPORTED", "Kernel size can't be greater"]
)
def test_is_oom_is_not_every_error(message: str) -> None:
    assert not is_oom(RuntimeError(message))


@given(seq_len=st.integers(1, 5000), batch_size=st.integers(1, 128))
def test_the_warm_up_tries_small_shapes_up_to_the_points_own_length(
    seq_len: int, batch_size: int
) -> None:
    """Doubling lengths from 4 below the point's, then the point's: the first the encoder takes
    is at most twice the shortest it takes (or the point's), and never longer than the point;
    the last is the point's own shape, batch included (issue 54.3)."""
    point = Point("any", seq_len, "train", batch_size, 7, "k=1")
    shapes = warmup_points(point)
    assert shapes[-1] == point
    if batch_size > 2:
        shapes = shapes[:-1]
    lengths = [shape.seq_len for shape in shapes]
    assert lengths[-1] == seq_len and lengths == sorted(set(lengths))
    assert lengths[0] == min(4, seq_len)
    assert all(longer == 2 * shorter for shorter, longer in itertools.pairwise(lengths[:-1]))
    assert len(lengths) == 1 or seq_len <= 2 * lengths[-2]
    for shape in shapes:
        assert shape.batch_size == min(2, batch_size)
        assert (shape.encoder, shape.mode, shape.dim, shape.options) == ("any", "train", 7, "k=1")


@pytest.mark.slow
def test_an_encoder_that_needs_a_larger_batch_than_the_warm_ups_is_measured(
    plugin: Path, tmp_path: Path
) -> None:
    """Issue 54.3: an encoder taking only batches of >= 3 sentences failed every point
    ("warm-up (infer) at [2, 24, 32]: ValueError: batch of 2 sentences") though the point's own
    batch of 3 runs: the warm-up now falls back to the point's own shape."""
    out = tmp_path / "run"
    assert profile(out, "plug_batch3", "24") == 0
    rows = load_run(out).rows
    assert set(rows["status"]) == {"ok"}, rows["message"].to_dict()
    assert list(rows["mode"]) == ["infer", "train"]
