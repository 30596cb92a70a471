"""The compiled tiles' CPU kernels (``cpu_tiles.cpp``): one library file per build, loaded by path.

Loading the library registers its functions as the CPU kernels of ``compiled_tiles``' operators
(``sanbench::tanh_tile_sums``, ``tanh_tile_grads``: ``TORCH_LIBRARY_IMPL(sanbench, CPU, ...)``),
so that the dispatcher calls them with no Python in between; ``k2`` is a float of the
operators' schema, and float16 and bfloat16 tiles are summed in float32 in C++.

A build is a function of the source's text, the flags, torch's build and this CPU (model and
instruction-set flags): :func:`build_name` hashes them, and the library is
``$TORCH_EXTENSIONS_DIR/NAME/NAME.so`` (sanbench's commands set the variable to
``~/.cache/sanbench/extensions``, or under ``$SANBENCH_CACHE``; docs/training.md). A process
that finds the file loads it (``torch.ops.load_library``: no compiler, no ninja), whichever
checkout or virtualenv of the same source it runs from; a torch upgrade or another CPU model
sharing the folder gets its own. One that finds none builds it, one process at a time (a lock
next to the folder): ``torch.utils.cpp_extension`` compiles a copy of the hashed source in a new
folder of this build's (``building-*``), and the finished library is moved into place in one
step, so that a reader sees a whole library or none and a build killed midway leaves only its
own folder (which the next build deletes). One kernel serves every tile shape, offset, grad mode
and kind of tensor: nothing is traced or compiled per process.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import torch
from filelock import FileLock

SOURCE = Path(__file__).with_name("cpu_tiles.cpp")
EXTENSIONS_DIR = "TORCH_EXTENSIONS_DIR"
BUILDING = "building-"  # the prefix of a build's own folder, inside the library's
# ATen's vectors at the width torch's own kernels use on this CPU, as inductor compiles them
CAPABILITY_FLAGS = {
    "AVX512": ["-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx512bw", "-mfma",
               "-DCPU_CAPABILITY_AVX512"],
    "AVX2": ["-mavx2", "-mfma", "-DCPU_CAPABILITY_AVX2"],
}  # fmt: skip
# a line of a failed build's output that says what failed: the compiler's, the linker's or the
# shell's (a compiler that is not there)
FAILURE = re.compile(r"error|not found|cannot|undefined reference", re.IGNORECASE)
# lines that are not the compiler's: ninja's progress and its own (after torch's heading)
NOT_THE_COMPILERS = re.compile(
    r"^(Error building extension '[^']*': )?(\[\d+/\d+\] |FAILED: |ninja: )"
)
TORCH_BUILDER = "torch.utils.cpp_extension"  # its logger's and its warnings' module name
# ninja's first lines while building (:func:`_ninja_dies_with_the_builder`): SIGTERM to ninja
# when its parent dies (PR_SET_PDEATHSIG = 1), unless the parent died before the request
NINJA_WRAPPER = """import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))
if os.getppid() != {builder}:
    sys.exit("the process that started this build has ended")
os.execv({ninja!r}, [{ninja!r}, *sys.argv[1:]])
"""


class BuildError(RuntimeError):
    """The library cannot be built here; the message is the compiler's line saying why."""


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
def _source() -> str:
    """The source's text, read once: the text hashed is the text compiled."""
    return SOURCE.read_text()


@functools.cache
def build_name() -> str:
    """The library's name: a hash of its source, flags, torch's build and this CPU."""
    torch_build = f"{torch.__version__} {torch.version.git_version}"
    parts = [_source(), " ".join(compile_flags()), torch_build, _cpu_flags()]
    return "sanbench_cpu_tiles_" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def build_folder() -> Path:
    """Where the library is kept: ``$TORCH_EXTENSIONS_DIR`` (torch's variable for it), else
    ``~/.cache/torch_extensions``, then :func:`build_name`."""
    root = os.environ.get(EXTENSIONS_DIR) or Path.home() / ".cache" / "torch_extensions"
    return Path(root) / build_name()


def library_file() -> Path:
    """The built library: ``build_folder() / NAME.so``."""
    return build_folder() / f"{build_name()}.so"


# what :func:`load` did in this process: "built" (whether it built the library), "waited" (set
# when it waited for another process's build, then loaded it), or "failed" (the error its one
# attempt raised); set under the lock, once
_LOAD: dict[str, bool | Exception] = {}
_LOAD_LOCK = threading.Lock()


def load() -> bool:
    """Load the library (the operators' CPU kernels), building it first if no process has; True
    when this process built it. Once per process, under a lock: a thread that calls while
    another loads waits until the kernels are registered. Raises :class:`BuildError` when it
    cannot be built, ``OSError`` when the file cannot be loaded: the first attempt's error
    again on every later call (one build attempt per process)."""
    with _LOAD_LOCK:
        if "failed" in _LOAD:
            raise _LOAD["failed"]
        if "built" not in _LOAD:
            try:
                _LOAD["built"] = _load_or_build(library_file())
            except (BuildError, OSError) as error:
                _LOAD["failed"] = error
                raise
        return bool(_LOAD["built"])


def _load_or_build(library: Path) -> bool:
    """:func:`load`'s work: load ``library``, building it first (one process at a time, a lock
    next to its folder) if none is there; True when this call built it."""
    if library.is_file():
        torch.ops.load_library(library)
        return False
    library.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{library.parent}.lock"):
        if library.is_file():  # another process built it while this one waited
            _LOAD["waited"] = True
            torch.ops.load_library(library)
            return False
        _build(library)  # which loads it
    return True


def loaded() -> bool:
    """Whether :func:`load` has loaded the library, and so registered its kernels, in this
    process."""
    return "built" in _LOAD


def built_here() -> bool:
    """Whether this process built the library (False before :func:`load`, and when it loaded
    the file another process built)."""
    return bool(_LOAD.get("built", False))


def waited_for_build() -> bool:
    """Whether this process's :func:`load` waited for another process's build of the library
    (which it then loaded); False when it found the file or built it itself. The caller times
    the load (encoders measure nothing: ``harness.measurement``)."""
    return _LOAD.get("waited") is True


def _build(library: Path) -> None:
    """Compile the hashed source in a new folder, load the library and move it to ``library``
    (the caller holds the build's lock: older ``building-*`` folders are of killed builds)."""
    from torch.utils import cpp_extension  # imports setuptools: only when building

    for leftover in library.parent.glob(f"{BUILDING}*"):
        shutil.rmtree(leftover, ignore_errors=True)
    with (
        tempfile.TemporaryDirectory(prefix=BUILDING, dir=library.parent) as folder,
        _ninja_on_path(),
        _ninja_dies_with_the_builder(Path(folder)),
        _torch_build_messages_silenced(),
        _stderr_kept() as stderr,
    ):
        source = Path(folder) / SOURCE.name
        source.write_text(_source())
        try:
            built = cpp_extension.load(
                build_name(),
                [str(source)],
                extra_cflags=compile_flags(),
                extra_ldflags=["-fopenmp"],
                build_directory=folder,
                is_python_module=False,
                verbose=False,
            )
        except RuntimeError as error:  # what the compiler, the linker or ninja said
            raise BuildError(also_said(compiler_error(str(error)), stderr())) from error
        except subprocess.CalledProcessError as error:  # torch's `$CXX --version` check failed
            said = compiler_error(error.output.decode(errors="replace")) if error.output else ""
            command = " ".join(map(str, error.cmd))
            status = f"{command} exited with status {error.returncode}"
            reason = f"{status}: {said}" if said else status
            raise BuildError(also_said(reason, stderr())) from error
        os.replace(built, library)


def also_said(reason: str, stderr: str) -> str:
    """``reason`` a build failed for, with the line of what the programs torch ran printed on
    the console's stderr (``stderr``) that says what failed, when ``reason`` lacks it."""
    line = compiler_error(stderr) if stderr.strip() else ""
    return reason if not line or line in reason else f"{reason} ({line})"


@contextlib.contextmanager
def _stderr_kept() -> Iterator[Callable[[], str]]:
    """File descriptor 2 into a temporary file while building: torch runs some programs with
    the console's stderr (its ``$CXX -dumpfullversion -dumpversion`` check), and a compiler
    wrapper that fails there printed its error as a line of its own before sanbench's warning
    quoting the same. Yields a function that returns what was written so far, for the build's
    error to quote; nothing of it is printed (a build that succeeds says nothing). The build
    runs before training starts: no other thread of sanbench's prints meanwhile."""
    sys.stderr.flush()
    console = os.dup(2)
    with tempfile.TemporaryFile() as kept:
        os.dup2(kept.fileno(), 2)

        def written() -> str:
            sys.stderr.flush()
            kept.seek(0)
            return kept.read().decode(errors="replace")

        try:
            yield written
        finally:
            sys.stderr.flush()
            os.dup2(console, 2)
            os.close(console)


def compiler_error(output: str) -> str:
    """The line of a failed build's ``output`` that says what failed: the first that names a
    failure, not counting torch's heading, ninja's lines and the commands it ran (the lines with
    ``-o``), else the first such line."""
    lines = [line.strip() for line in output.splitlines()]
    said = [line for line in lines if line and not NOT_THE_COMPILERS.match(line)]
    said = [line for line in said if " -o " not in line]
    return next((line for line in said if FAILURE.search(line)), said[0] if said else output)


@contextlib.contextmanager
def _ninja_on_path() -> Iterator[None]:
    """The ninja package's program first on ``PATH`` while building (its virtualenv may not be
    on ``PATH``); without the package, a ninja of the system's, if any."""
    try:
        import ninja
    except ImportError:
        yield
        return
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([ninja.BIN_DIR, path])
    try:
        yield
    finally:
        os.environ["PATH"] = path


@contextlib.contextmanager
def _ninja_dies_with_the_builder(folder: Path) -> Iterator[None]:
    """On Linux, ``ninja`` on ``PATH`` while building is a wrapper (in the build's ``folder``)
    that asks the kernel for SIGTERM when the thread that started it dies (``prctl``'s
    ``PR_SET_PDEATHSIG``, kept across ``exec``), then runs the real ninja: a process killed
    while building, even by SIGKILL, takes ninja with it, and ninja stops the compilers it runs
    (it sends their process groups the signal it got). Elsewhere, or without a ninja, as is."""
    ninja = shutil.which("ninja")
    if ninja is None or not sys.platform.startswith("linux"):
        yield
        return
    programs = folder / "bin"
    programs.mkdir()
    script = programs / "ninja.py"
    script.write_text(NINJA_WRAPPER.format(builder=os.getpid(), ninja=ninja))
    wrapper = programs / "ninja"
    python, path = shlex.quote(sys.executable), shlex.quote(str(script))
    wrapper.write_text(f'#!/bin/sh\nexec {python} -S {path} "$@"\n')
    wrapper.chmod(0o755)
    search_path = os.environ.get("PATH", "")
    os.environ["PATH"] = os.pathsep.join([str(programs), search_path])
    try:
        yield
    finally:
        os.environ["PATH"] = search_path


@contextlib.contextmanager
def _torch_build_messages_silenced() -> Iterator[None]:
    """No line of torch's while building (its banner on a compiler it does not know, which
    precedes the compiler's own error): only sanbench's lines reach the console."""
    logger = logging.getLogger(TORCH_BUILDER)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=re.escape(TORCH_BUILDER))
            yield
    finally:
        logger.setLevel(level)
