"""The profile worker asks for the tiles of its own device, with its index, and makes ``cuda:N``
its current device: ``profile --device cuda:1`` built and ran the tiles' Triton probe on GPU 0
(outside tester of issue 57, a faked 2-GPU torch)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict

import pytest
import torch

from encoders import build_encoder
from encoders.layers import compiled_tiles
from encoders.layers.tanh_attention import tile_plan
from harness.measurement.profiled_step import Point
from harness.profiling import worker


@pytest.fixture
def two_gpus(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[torch.device]]:
    """A torch that sees two GPUs, the current one left at 0 (as in a fresh worker); each probe
    of the tiles records its device instead of running."""
    probed: list[torch.device] = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(compiled_tiles, "tiles_agree", lambda device: probed.append(device) or True)
    compiled_tiles._probe.cache_clear()
    yield probed
    compiled_tiles._probe.cache_clear()


def test_the_tile_plan_of_cuda_1_probes_cuda_1_only(two_gpus: list[torch.device]) -> None:
    model = build_encoder("disan", input_dim=16, attention_impl="chunked")
    assert tile_plan(model, torch.device("cuda", 1), "train").startswith("compiled tiles of")
    assert two_gpus == [torch.device("cuda", 1)]


@pytest.mark.slow
def test_a_point_asks_for_the_tiles_of_its_device_with_its_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every ``available`` call of a measured point (the worker's and each chunked forward's)
    gets the device itself, not its type: "cuda" without an index is the current GPU (0)."""
    asked: list[object] = []
    real = compiled_tiles.available
    monkeypatch.setattr(
        compiled_tiles, "available", lambda device: asked.append(device) or real(device)
    )
    point = Point("disan", 8, "train", 2, 16, options="attention_impl=chunked")
    models = worker.Models(torch.device("cpu"), compile_model=False)
    reply = worker.run_point({"point": asdict(point), "dtype": "fp32", "repeats": 1}, models)
    assert reply["status"] == "ok" and asked
    assert all(isinstance(device, torch.device) and device == models.device for device in asked)


def test_the_worker_makes_cuda_n_its_current_device(monkeypatch: pytest.MonkeyPatch) -> None:
    current: list[torch.device] = []
    monkeypatch.setattr(torch.cuda, "set_device", current.append)
    assert worker.worker_device("cuda:1") == torch.device("cuda", 1)
    assert current == [torch.device("cuda", 1)]
    assert worker.worker_device("cpu") == torch.device("cpu") and len(current) == 1


STICKY = (
    "CUDA error: an illegal memory access was encountered\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect."
)


class Sticky(torch.nn.Module):
    """No parameters (so ``.to("cuda")`` needs no GPU); every call fails as after an illegal
    memory access."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> None:
        raise RuntimeError(STICKY)


def test_a_sticky_cuda_error_in_the_cleanup_still_gives_the_point_its_error_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside tester (issue 57): after a sticky CUDA error ``run_point``'s cleanup
    (``models.forget()``, ``torch.cuda.empty_cache()`` in a ``finally``) raised again, so the
    point lost its row and the worker its reply; "run_point never raises" was false."""

    def spoiled() -> None:
        raise RuntimeError(STICKY)

    monkeypatch.setattr(torch.cuda, "empty_cache", spoiled)
    monkeypatch.setattr(worker, "build_encoder", lambda name, **options: Sticky())
    models = worker.Models(torch.device("cuda", 0), compile_model=False)
    point = Point("disan", 8, "infer", 2, 8)
    reply = worker.run_point({"point": asdict(point), "dtype": "fp32", "repeats": 1}, models)
    assert reply["status"] == "error" and reply["restart"] is True
    assert "cleanup" in reply["message"]


def test_a_failure_of_several_lines_is_one_line_beginning_with_its_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CUDA message spans lines: the row (and so the console line and the failure list) got
    stray lines such as "CUDA kernel errors might be asynchronously reported"."""
    monkeypatch.setattr(worker, "build_encoder", lambda name, **options: Sticky())
    models = worker.Models(torch.device("cpu"), compile_model=False)
    point = Point("disan", 8, "infer", 2, 8)
    reply = worker.run_point({"point": asdict(point), "dtype": "fp32", "repeats": 1}, models)
    assert "\n" not in reply["message"]
    first = "warm-up (infer) at [2, 4, 8]: RuntimeError: CUDA error: an illegal memory access"
    assert reply["message"].startswith(first) and reply["restart"] is True


def test_a_sweep_without_a_budget_says_no_budget() -> None:
    """Outside tester (issue 57): a CUDA sweep's first line said "budget None MB/point"."""
    from harness.profiling.sweep import budget_words

    assert budget_words(None) == "no budget"
    assert budget_words(18318.4) == "budget 18,318 MB/point"
