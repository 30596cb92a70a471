"""The fused tiles' CPU kernels (``cpu_tiles.cpp``), compiled once per machine and reused.

``torch.utils.cpp_extension`` builds the C++ file with this machine's compiler (the one
``torch.compile`` needs too) and ``ninja`` into ``TORCH_EXTENSIONS_DIR`` (sanbench's commands
set it to ``~/.cache/sanbench/extensions``, or under ``$SANBENCH_CACHE``; docs/training.md), in
a folder named for what the build depends on: the source, the flags, torch's version and the CPU
(model and instruction-set flags), so a torch upgrade or another CPU model sharing the home
folder builds its own. Later processes load the built library in milliseconds: no tracing, no
compiling, and one kernel for every tile shape, offset, grad mode and kind of tensor (a compiled
function was traced again for each of those in each process, 5 s per fit)."""

from __future__ import annotations

import functools
import hashlib
import os
import platform
from pathlib import Path
from typing import Any
from unittest import mock

import torch
from filelock import FileLock

SOURCE = Path(__file__).with_name("cpu_tiles.cpp")
EXTENSIONS_DIR = "TORCH_EXTENSIONS_DIR"
# ATen's vectors at the width torch's own kernels use on this CPU, as inductor compiles them
CAPABILITY_FLAGS = {
    "AVX512": ["-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mfma",
               "-DCPU_CAPABILITY_AVX512"],
    "AVX2": ["-mavx2", "-mfma", "-DCPU_CAPABILITY_AVX2"],
}  # fmt: skip


def compile_flags() -> list[str]:
    """-O3, OpenMP (``at::parallel_for`` is inline: without it, one thread) and the vector flags
    of ``torch.backends.cpu.get_cpu_capability()`` (none: scalar)."""
    capability = torch.backends.cpu.get_cpu_capability()
    return ["-O3", "-fopenmp", *CAPABILITY_FLAGS.get(capability, [])]


def _cpu_flags() -> str:
    """This CPU's model and instruction-set flags (``/proc/cpuinfo`` on Linux)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or platform.machine()
    lines = text.splitlines()
    wanted = ("model name", "flags")
    return "\n".join(dict.fromkeys(line for line in lines if line.startswith(wanted)))


@functools.cache
def build_name() -> str:
    """The extension's name: a hash of its source, flags, torch's version and this CPU."""
    parts = [SOURCE.read_text(), " ".join(compile_flags()), torch.__version__, _cpu_flags()]
    return "sanbench_cpu_tiles_" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def build_folder() -> Path:
    """Where :func:`load` builds and finds the library: ``$TORCH_EXTENSIONS_DIR`` (torch's
    variable for it), else ``~/.cache/torch_extensions``, then :func:`build_name`."""
    root = os.environ.get(EXTENSIONS_DIR) or Path.home() / ".cache" / "torch_extensions"
    return Path(root) / build_name()


@functools.cache
def load() -> Any:
    """The library's operators (``torch.ops.sanbench_cpu``), built on first use; raises what the
    compiler said when it cannot be built."""
    from torch.utils import cpp_extension  # the first use: it imports setuptools

    folder = build_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = os.environ.get("PATH", "")
    try:  # the ninja package's program, also where its virtualenv is not on PATH
        import ninja

        path = os.pathsep.join([ninja.BIN_DIR, path])
    except ImportError:  # a ninja of the system's, if any
        pass
    # one process builds at a time (an flock, released when its process dies, however): torch's
    # own marker of a build under way is a plain file, which a process killed while building
    # leaves behind for every later one to wait on forever; under this lock it is stale
    with FileLock(f"{folder}.lock"), mock.patch.dict(os.environ, {"PATH": path}):
        (folder / "lock").unlink(missing_ok=True)
        cpp_extension.load(
            build_name(),
            [str(SOURCE)],
            extra_cflags=compile_flags(),
            extra_ldflags=["-fopenmp"],
            build_directory=str(folder),
            is_python_module=False,
            verbose=False,
        )
    return torch.ops.sanbench_cpu


KERNEL_DTYPES = (torch.float32, torch.float64)


def _in_kernel_dtype(tensors: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """Float tensors in a dtype the kernels take: float16 and bfloat16 (autocast) as float32,
    the sums' own precision in either case (the mask stays bool)."""
    return tuple(
        t.float() if t.is_floating_point() and t.dtype not in KERNEL_DTYPES else t for t in tensors
    )


def tile_sums(*args: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """(Σ_k w v_k, Σ_k w) of one tile (``fused_tiles.tile_sums``) in ``a``'s dtype."""
    dtype = args[0].dtype
    return tuple(t.to(dtype) for t in load().tile_sums(*_in_kernel_dtype(args)))


def tile_grads(*args: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """(Σ_k M, Σ_q M, Σ_q w g) of one tile (``fused_tiles``' backward) in ``a``'s dtype."""
    dtype = args[0].dtype
    return tuple(t.to(dtype) for t in load().tile_grads(*_in_kernel_dtype(args)))
