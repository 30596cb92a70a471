"""``harness.training.warm_up``: the chunked attention's tiles are ready before training's clock."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from encoders import build_encoder
from encoders.layers import compiled_tiles
from encoders.layers.tanh_attention import TILE_SIZES
from harness.training.warm_up import warm_up_lengths, warm_up_tiles
from tests.harness.training.attention_runs import small_bi_blosan, train_and_infer

CPU = torch.device("cpu")
ROOT = Path(__file__).resolve().parents[3]


def test_every_attention_gets_a_first_a_middle_and_a_last_tile() -> None:
    disan = build_encoder("disan", input_dim=6, hidden_dim=4)
    largest = max(TILE_SIZES[("compiled", "infer")], TILE_SIZES[("compiled", "train")])
    assert warm_up_lengths(disan) == [2 * largest + 3]
    assert warm_up_lengths(build_encoder("disan", input_dim=6, hidden_dim=4, chunk_size=5)) == [13]
    # the inter-block attention sees one query per block of 3 tokens: 7 blocks are 21 tokens
    assert warm_up_lengths(small_bi_blosan()) == [7, 21]


@pytest.mark.parametrize(
    "encoder",
    [
        build_encoder("disan", input_dim=6, hidden_dim=4, attention_impl="naive"),
        build_encoder("multi_head", input_dim=6, hidden_dim=4, heads=2),
    ],
    ids=["naive disan", "multi_head"],
)
def test_nothing_is_warmed_without_a_chunked_attention(encoder: torch.nn.Module) -> None:
    assert warm_up_tiles(encoder, CPU, contextlib.nullcontext) is None


@pytest.mark.slow
@pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device here: its tiles are compiled per variant"
)
def test_after_the_warm_up_no_length_compiles_the_tiles_again() -> None:
    """On CUDA: lengths the warm-up never ran, padded, in the three modes, under the compiler's
    ``fail_on_recompile`` stance; without the warm-up the same calls do recompile."""
    lengths = (4, 11, 30, 50)
    torch.compiler.reset()
    encoder = small_bi_blosan().cuda()
    generator_state = torch.get_rng_state()
    seconds = warm_up_tiles(encoder, torch.device("cuda"), contextlib.nullcontext)
    assert seconds is not None and seconds > 0
    assert torch.equal(torch.get_rng_state(), generator_state)  # training draws the same dropout
    assert encoder.training and all(p.grad is None for p in encoder.parameters())
    with torch.compiler.set_stance("fail_on_recompile"):
        train_and_infer(encoder, lengths)
    torch.compiler.reset()
    with pytest.raises(RuntimeError), torch.compiler.set_stance("fail_on_recompile"):
        train_and_infer(small_bi_blosan().cuda(), lengths)
    torch.compiler.reset()


WARM_UP = """
import contextlib, json
import torch
from harness.training.warm_up import warm_up_tiles
from tests.harness.training.attention_runs import small_bi_blosan, train_and_infer
encoder = small_bi_blosan()
seconds = warm_up_tiles(encoder, torch.device("cpu"), contextlib.nullcontext)
train_and_infer(encoder, (4, 11, 30, 50))
print(json.dumps({"seconds": seconds}))
"""


@pytest.mark.slow
@pytest.mark.skipif(not compiled_tiles.available("cpu"), reason="no compiler for the tiles here")
def test_a_process_warms_up_trains_and_infers_without_compiling_anything(tmp_path) -> None:
    """A process that loads the CPU tiles' library (built once into the test session's
    TORCH_EXTENSIONS_DIR) compiles nothing to warm up, train and infer at lengths and modes of
    every kind: inductor's cache stays empty. That a second process, of this checkout or of
    another, adds no file to the library's folder: test_cpu_tiles' two-checkouts test."""
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    environment = {
        **os.environ,
        "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor"),
        "PYTHONPATH": str(root),
    }
    run = subprocess.run(
        [sys.executable, "-c", WARM_UP], env=environment, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout.strip().splitlines()[-1])["seconds"] is not None
    inductor = tmp_path / "inductor"
    assert not inductor.exists() or not any(path.is_file() for path in inductor.rglob("*"))


def test_a_warm_up_says_whether_it_compiled_or_reused(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from encoders.layers import cpu_tiles
    from harness.training.warm_up import compiled_kernel_files, kernel_folder, warm_up_line

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "extensions"))
    cuda = torch.device("cuda")
    assert kernel_folder(cuda) == str(tmp_path / "inductor")
    assert kernel_folder(CPU) == str(tmp_path / "extensions" / cpu_tiles.build_name())
    assert compiled_kernel_files(cuda) == 0
    (tmp_path / "inductor" / "fxgraph" / "ab").mkdir(parents=True)
    (tmp_path / "inductor" / "fxgraph" / "ab" / "entry").write_bytes(b"kernel")
    assert compiled_kernel_files(cuda) == 1
    assert (
        warm_up_line(31.2, 1, "F")
        == "attention tiles: compiled in 31.2 s, kept in F for later runs"
    )
    assert warm_up_line(0.1, 0, "F") == "attention tiles: reused the compiled kernels in F (0.1 s)"


def test_every_command_keeps_compiled_kernels_in_sanbenchs_cache(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command's processes see TORCHINDUCTOR_CACHE_DIR = $SANBENCH_CACHE/inductor and
    TORCH_EXTENSIONS_DIR = $SANBENCH_CACHE/extensions (unless the user set them); the command's
    end restores the environment."""

    import harness.cli

    seen = {}

    def run(words: list[str]) -> None:
        seen.update(
            folder=os.environ["TORCHINDUCTOR_CACHE_DIR"],
            extensions=os.environ["TORCH_EXTENSIONS_DIR"],
        )

    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR")
    monkeypatch.delenv("TORCH_EXTENSIONS_DIR", raising=False)
    monkeypatch.setenv("SANBENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(harness.cli, "command_function", lambda words: ("fit", run))
    monkeypatch.setattr(harness.cli, "parse_command", lambda name, words: [])
    assert harness.cli.main(["fit"]) == 0
    assert seen["folder"] == str(tmp_path / "inductor")
    assert seen["extensions"] == str(tmp_path / "extensions")
    assert "TORCHINDUCTOR_CACHE_DIR" not in os.environ and "TORCH_EXTENSIONS_DIR" not in os.environ


def test_a_warm_up_probes_and_runs_on_its_ranks_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """On cuda:1 (``--device cuda:1``, or the second DDP rank before Lightning sets its device)
    the tiles are checked on cuda:1, with cuda:1 current: GPU 0 gets no context."""
    seen: list[tuple[str, object]] = []

    @contextlib.contextmanager
    def current(device: torch.device) -> Iterator[None]:
        seen.append(("current", device))
        yield

    def available(device: torch.device) -> bool:
        seen.append(("probed", device))
        return False  # nothing more runs on a machine with no GPU

    monkeypatch.setattr(torch.cuda, "device", current)
    monkeypatch.setattr(compiled_tiles, "available", available)
    second = torch.device("cuda", 1)
    encoder = build_encoder("disan", input_dim=6, hidden_dim=4)
    assert warm_up_tiles(encoder, second, contextlib.nullcontext) is None
    assert seen == [("current", second), ("probed", second)]
