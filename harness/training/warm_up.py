"""Make a chunked tanh attention's tiles ready before training's clock starts.

On CPU the tiles are a C++ library (``encoders.layers.cpu_tiles``) built once per machine and
loaded from its file by every later process: :func:`warm_up_tiles` loads (or first builds) it.
On CUDA the compiled tiles (``encoders.layers.compiled_tiles``) compile on first use, once per
variant: the grad mode and kind of tensor (training, ``no_grad`` for the dev inference time,
``inference_mode`` for Lightning's validation), the dtype, and whether a tile's views start at
offset 0 (the first tile of a call) or further on. Left to training, those compilations (seconds
each process) would fall into the first epoch's time and into the dev inference time.
:func:`warm_up_tiles` runs the encoder on synthetic inputs long enough for every attention to
have a first, a middle and a last tile of at least two queries, in each of the three modes, so
that training reads compiled kernels only; ``compile_s`` in metrics.json records its seconds.
Both run on the device the run (or this DDP rank) trains on, made current: no other GPU gets a
context.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import torch

from encoders.layers import compiled_tiles, cpu_tiles
from encoders.layers.tanh_attention import chunked_sizes, tile_size
from harness.measurement.elapsed import Elapsed
from harness.measurement.profiled_step import MODES

WARM_UP_BATCH = 2  # the tiles compile for any batch of at least two sentences


def warm_up_lengths(encoder: torch.nn.Module) -> list[int]:
    """Lengths at which every chunked attention of ``encoder`` runs three tiles or more: 2T + 3
    tokens for the largest tile T, times the block length r for the attention over blocks of
    an encoder with a ``block_len`` (Bi-BloSAN's inter-block attention sees L / r blocks)."""
    sizes = chunked_sizes(encoder)
    largest = max(tile_size(size, True, mode) for size in sizes for mode in MODES)
    tokens = 2 * largest + 3
    block_len = getattr(encoder, "block_len", None)
    return sorted({tokens, tokens * block_len} if isinstance(block_len, int) else {tokens})


def kernel_folder(device: torch.device) -> str:
    """Where the tiles of ``device`` are kept once compiled: the CPU library's folder
    (``cpu_tiles.build_folder``, under ``TORCH_EXTENSIONS_DIR``), else inductor's cache
    (``TORCHINDUCTOR_CACHE_DIR``); sanbench's commands set both (docs/training.md)."""
    if device.type == "cpu":
        return str(cpu_tiles.build_folder())
    return os.environ.get("TORCHINDUCTOR_CACHE_DIR", "inductor's default cache")


def compiled_kernel_files(device: torch.device) -> int:
    """Kernel files compiled so far: on CPU, 1 once this process has built the tiles' library,
    else 0 (other processes may build into the folder meanwhile); elsewhere the files in
    :func:`kernel_folder`. A warm-up that adds none reused every kernel."""
    if device.type == "cpu":
        return int(cpu_tiles.built_here())
    folder = kernel_folder(device)
    if not Path(folder).is_dir():
        return 0
    return sum(len(files) for _, _, files in os.walk(folder))


def waited_for_build(device: torch.device) -> bool:
    """Whether this process waited for another process's build of the CPU tiles, then loaded it
    (``cpu_tiles.waited_for_build``; elsewhere no build is shared so)."""
    return device.type == "cpu" and cpu_tiles.waited_for_build()


def warm_up_line(seconds: float, new_files: int, folder: str, waited: bool = False) -> str:
    """What a run says of its tiles: compiled (new kernel files), or reused from ``folder``,
    after waiting for another process's build of them when ``waited`` (most of ``seconds``)."""
    if new_files:
        return f"attention tiles: compiled in {seconds:.1f} s, kept in {folder} for later runs"
    if waited:
        return (
            "attention tiles: waited for another process's build, then reused the compiled "
            f"kernels in {folder} ({seconds:.1f} s in all)"
        )
    return f"attention tiles: reused the compiled kernels in {folder} ({seconds:.1f} s)"


def warm_up_tiles(
    encoder: torch.nn.Module,
    device: torch.device,
    forward_context: Callable[[], AbstractContextManager[object]],
) -> float | None:
    """Seconds spent making the tiles ready: on CPU loading (or first building) their library;
    elsewhere running ``encoder`` (on ``device``, under the precision's ``forward_context``) at
    :func:`warm_up_lengths` in training, ``no_grad`` and ``inference_mode``. None when it has no
    chunked attention or the tiles do not compile here (nothing to warm). The random generators
    and the encoder's mode and gradients are as before."""
    elapsed = Elapsed()  # the first check of the tiles included
    if not chunked_sizes(encoder):
        return None
    with current(device):
        if not compiled_tiles.available(device):
            return None
        if device.type != "cpu":  # on CPU one kernel for every shape, mode and offset
            run_in_each_mode(encoder, device, forward_context)
    return elapsed.seconds


def current(device: torch.device) -> contextlib.AbstractContextManager[object]:
    """``device`` made the current GPU (``torch.cuda.device``; nothing for other devices)."""
    return torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()


def run_in_each_mode(
    encoder: torch.nn.Module,
    device: torch.device,
    forward_context: Callable[[], AbstractContextManager[object]],
) -> None:
    """``encoder`` at :func:`warm_up_lengths` in training, ``no_grad`` and ``inference_mode``;
    its mode, its gradients and the random generators as they were."""
    training = encoder.training
    generator = torch.Generator(device=device).manual_seed(0)
    dtype = next(encoder.parameters()).dtype
    devices = [device] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        for length in warm_up_lengths(encoder):
            shape = (WARM_UP_BATCH, length, encoder.input_dim)
            x = torch.randn(shape, generator=generator, device=device, dtype=dtype)
            mask = torch.ones(shape[:2], dtype=torch.bool, device=device)
            encoder.train()
            with forward_context():
                pooled = encoder(x, mask).pooled
            pooled.float().sum().backward()
            encoder.eval()
            for mode in (torch.no_grad, torch.inference_mode):
                with mode(), forward_context():
                    encoder(x, mask)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    encoder.zero_grad(set_to_none=True)
    encoder.train(training)
