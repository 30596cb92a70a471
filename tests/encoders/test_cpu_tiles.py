"""``encoders.layers.cpu_tiles``: the CPU tiles' library, its dtypes and its build folder."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest
import torch

from encoders.layers import compiled_tiles, cpu_tiles

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.held_out,
    pytest.mark.skipif(
        not compiled_tiles.available("cpu"), reason="no C++ compiler for the CPU tiles here"
    ),
]


def strided_tile(dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """A tile as the attention passes it: views into [N, d, L] tensors and an [N, L, L] mask,
    at offsets past 0 and with a last key span of fewer keys than a vector holds."""
    generator = torch.Generator().manual_seed(3)
    x, y = (torch.rand(3, 5, 41, generator=generator) + 0.5 for _ in "xy")
    v, g, s = (torch.randn(3, 5, 41, generator=generator) for _ in "vgs")
    allowed = torch.rand(3, 41, 41, generator=generator) < 0.6
    rows, keys = slice(7, 20), slice(2, 39)
    tile = (x[..., rows], y[..., keys], v[..., keys], allowed[:, rows, keys])
    rest = (g[..., rows], s[..., rows])
    return tuple(t.to(dtype) if t.is_floating_point() else t for t in (*tile, *rest))


def test_half_precision_tiles_are_summed_in_float32_and_returned_in_their_dtype() -> None:
    k2 = 10.0 * compiled_tiles.LOG2_E
    a, b, v, allowed, g, s = strided_tile(torch.float32)
    expected = [
        *compiled_tiles.compiled_tile_sums(a, b, v, allowed, k2),
        *compiled_tiles.compiled_tile_grads(a, b, v, allowed, k2, g, s),
    ]
    for dtype in (torch.bfloat16, torch.float16):
        half = strided_tile(dtype)
        found = [
            *compiled_tiles.compiled_tile_sums(*half[:4], k2),
            *compiled_tiles.compiled_tile_grads(*half[:4], k2, *half[4:]),
        ]
        assert all(t.dtype == dtype for t in found)
        # what rounding the inputs and outputs to 8 (bf16) or 11 (fp16) bits can move
        for got, want in zip(found, expected, strict=True):
            torch.testing.assert_close(got.float(), want, rtol=0.05, atol=0.05 * want.abs().max())


CAPABILITY_CHECK = """
import torch
from encoders.layers import cpu_tiles, compiled_tiles
from tests.encoders.test_cpu_tiles import strided_tile
a, b, v, allowed, g, s = strided_tile(torch.float64)
k2 = 10.0 * compiled_tiles.LOG2_E
found = [
    *compiled_tiles.compiled_tile_sums(a, b, v, allowed, k2),
    *compiled_tiles.compiled_tile_grads(a, b, v, allowed, k2, g, s),
]
expected = [
    *compiled_tiles.tile_sums(a, b, v, allowed, k2),
    compiled_tiles.tile_query_grads(a, b, v, allowed, k2, g, s),
    *compiled_tiles.tile_key_grads(a, b, v, allowed, k2, g, s),
]
assert all(torch.allclose(x, y, rtol=0, atol=1e-12) for x, y in zip(found, expected, strict=True))
print(torch.backends.cpu.get_cpu_capability(), " ".join(cpu_tiles.compile_flags()))
"""


@pytest.mark.slow  # builds the library for each instruction set (10-40 s each)
@pytest.mark.parametrize("capability", ["avx2", "default"])
def test_the_library_is_exact_on_cpus_with_narrower_vectors(capability: str) -> None:
    """Built as for a CPU with AVX2 only, or with no vector unit torch uses (torch's
    ATEN_CPU_CAPABILITY), the tiles equal their expressions within 1e-12 in float64. The build
    goes to the test session's extensions folder (tests/conftest.py), as the held-out leg's
    (ATEN_CPU_CAPABILITY=default) and, on an AVX2 CPU, the other tests' do: one build per
    instruction set in the test command, not one more per test."""
    environment = {**os.environ, "ATEN_CPU_CAPABILITY": capability, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CAPABILITY_CHECK], env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0] == capability.upper()
    assert ("-mavx2" in done.stdout) == (capability == "avx2")
    assert "-mavx512f" not in done.stdout


CCACHE_ERROR = "ccache: error: Failed to create directory /nonexistent/.ccache/tmp"
# a compiler wrapper that answers --version and -v as the compiler and fails every other call
CCACHE_FAILING = f"""#!/bin/sh
for a in "$@"; do [ "$a" = --version ] || [ "$a" = -v ] && exec {{compiler}} "$a"; done
echo "{CCACHE_ERROR}: Permission denied" >&2
exit 1
"""


@pytest.mark.slow  # a process that imports torch and tries to build (about 10 s each)
@pytest.mark.parametrize(
    "missing", ["CXX names none", "none on PATH", "CXX fails", "CXX says on stderr"]
)
def test_without_a_compiler_one_warning_quotes_the_compilers_error(
    missing: str, tmp_path: Path
) -> None:
    """The only line on the console is sanbench's warning, and it quotes what failed (the
    shell's "not found" of the compiler), not the first 200 characters of the command. A
    wrapper that answers ``--version`` as the compiler but fails, on stderr, the version query
    torch runs with the console's stderr: its line came first on its own (outside check of
    #54)."""
    environment = {
        **os.environ,
        "TORCH_EXTENSIONS_DIR": str(tmp_path / "extensions"),
        "PYTHONPATH": str(ROOT),
    }
    if missing == "CXX names none":
        compiler = str(tmp_path / "no-compiler")
        environment["CXX"] = compiler
    elif missing == "CXX fails":  # torch runs `$CXX --version` first: an internal error, exit 1
        compiler = "/bin/false"
        environment["CXX"] = compiler
    elif missing == "CXX says on stderr":
        compiler = str(tmp_path / "wrapper")
        Path(compiler).write_text(CCACHE_FAILING.format(compiler=shutil.which("c++")))
        Path(compiler).chmod(0o755)
        environment["CXX"] = compiler
    else:
        compiler = "c++"
        environment.pop("CXX", None)
        environment["PATH"] = str(tmp_path)  # python is started by its full path
    script = "from encoders.layers import compiled_tiles\nprint(compiled_tiles.available('cpu'))\n"
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.split() == ["False"], done.stderr
    # every line but a warning's source line (indented)
    said = [line for line in done.stderr.splitlines() if line.strip() and line[:1] != " "]
    assert len(said) == 1 and "EagerTilesWarning" in said[0], done.stderr
    warning = said[0]
    failed = {"CXX fails": "/bin/false --version exited with status 1"}
    failed["CXX says on stderr"] = CCACHE_ERROR
    assert failed.get(missing, f"{compiler}: not found") in warning
    assert "-isystem" not in warning and "-MMD" not in warning


@pytest.mark.slow  # builds the library in a new folder (about 30 s)
def test_a_build_killed_midway_does_not_stop_the_next_one(tmp_path: Path) -> None:
    """What killed builds leave (torch's marker of a build under way in the build folder, as an
    earlier sanbench's left it, and a half-built folder of this one's) does not stop the next
    process, which builds and loads the library; torch's file is not deleted."""
    environment = {**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    script = (
        "import torch\n"
        "from encoders.layers import compiled_tiles, cpu_tiles\n"
        "folder = cpu_tiles.build_folder()\n"
        "(folder / 'building-killed').mkdir(parents=True)\n"
        "(folder / 'building-killed' / 'lock').write_text('')\n"
        "(folder / 'lock').write_text('')\n"
        "cpu_tiles.load()\n"
        "print(torch.ops.sanbench.tanh_tile_sums)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sanbench.tanh_tile_sums" in done.stdout
    folder = next(path for path in tmp_path.iterdir() if path.is_dir())
    assert (folder / "lock").exists()  # not sanbench's: left as it was
    assert not any(folder.glob("building-*"))  # its own: the killed build's deleted


def test_the_operators_take_k2_as_a_number_and_the_library_is_their_cpu_kernel() -> None:
    """Issue 55.7: k2 is a float of the operators' own schema (no 0-d tensor read with
    ``.item()``), and the library registers its functions as the CPU kernels of
    ``sanbench::tanh_tile_sums`` and ``tanh_tile_grads`` (no second operator namespace)."""
    assert compiled_tiles.available("cpu")  # the library loaded
    for name in compiled_tiles.TILE_OPERATORS:
        schema = str(getattr(torch.ops.sanbench, name.split("::")[1]).default._schema)
        assert "float k2" in schema, schema
    with pytest.raises(AttributeError):
        torch.ops.sanbench_cpu.tile_sums  # noqa: B018
    a, b, v, allowed, g, s = strided_tile(torch.float64)
    k2 = 10.0 * compiled_tiles.LOG2_E
    found = [
        *torch.ops.sanbench.tanh_tile_sums(a, b, v, allowed, k2),
        *torch.ops.sanbench.tanh_tile_grads(a, b, v, allowed, k2, g, s),
    ]
    expected = [
        *compiled_tiles.tile_sums(a, b, v, allowed, k2),
        compiled_tiles.tile_query_grads(a, b, v, allowed, k2, g, s),
        *compiled_tiles.tile_key_grads(a, b, v, allowed, k2, g, s),
    ]
    for got, want in zip(found, expected, strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=1e-12)


@pytest.mark.slow  # opcheck traces each operator through fake tensors and AOT dispatch (6 s)
def test_the_operators_pass_torchs_operator_checks_on_the_cpu_kernels() -> None:
    """``torch.library.opcheck``: the schema (k2 a float, nothing aliased or mutated), the
    fake kernels against the C++ kernels' outputs, and AOT dispatch (torch.compile's path)."""
    assert compiled_tiles.available("cpu")
    a, b, v, allowed, g, s = strided_tile(torch.float64)
    k2 = 10.0 * compiled_tiles.LOG2_E
    torch.library.opcheck(torch.ops.sanbench.tanh_tile_sums.default, (a, b, v, allowed, k2))
    torch.library.opcheck(torch.ops.sanbench.tanh_tile_grads.default, (a, b, v, allowed, k2, g, s))


def test_a_cpu_call_that_reaches_the_python_functions_after_the_load_is_refused() -> None:
    """Once the library is loaded, the CPU key has its kernels: a CPU call in the operators'
    Python functions (the compiled kernels of other devices) would be a registration gone wrong,
    and is refused rather than dispatched again in a circle."""
    assert compiled_tiles.available("cpu")
    with pytest.raises(RuntimeError, match="registered no CPU kernel"):
        # the dispatch again reaching the Python functions again, in the same thread
        compiled_tiles._on_the_cpu_kernels(compiled_tiles._on_the_cpu_kernels, print)


def test_an_edited_source_is_another_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's name hashes the source's text: a build of older source is not loaded."""
    before = cpu_tiles.build_name()
    edited = cpu_tiles.SOURCE.read_text() + "// edited\n"
    cpu_tiles.build_name.cache_clear()
    monkeypatch.setattr(cpu_tiles, "_source", lambda: edited)
    try:
        assert cpu_tiles.build_name() != before
    finally:
        cpu_tiles.build_name.cache_clear()


def test_the_module_imports_no_test_double() -> None:
    tree = ast.parse(Path(cpu_tiles.__file__).read_text())
    imported = [
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert not any(name.startswith("unittest") for name in imported)


COMPILE = "c++ -MMD -MF cpu_tiles.o.d -isystem /t/include -O3 -c /b/cpu_tiles.cpp -o cpu_tiles.o"
LINK = "c++ cpu_tiles.o -shared -fopenmp -L/t/lib -lc10 -ltorch_cpu -o sanbench_cpu_tiles_0.so"


@pytest.mark.parametrize(
    ("output", "line"),
    [
        (
            f"Error building extension 'sanbench_cpu_tiles_0': [1/2] {COMPILE}\n"
            f"FAILED: [code=1] cpu_tiles.o \n{COMPILE}\n"
            "/b/cpu_tiles.cpp: In function 'void f()':\n"
            "/b/cpu_tiles.cpp:12:3: error: 'foo' was not declared in this scope\n"
            "   12 |   foo();\n      |   ^~~\nninja: build stopped: subcommand failed.\n",
            "/b/cpu_tiles.cpp:12:3: error: 'foo' was not declared in this scope",
        ),
        (
            f"Error building extension 'sanbench_cpu_tiles_0': [1/2] {COMPILE}\n"
            f"[2/2] {LINK}\nFAILED: [code=1] sanbench_cpu_tiles_0.so \n{LINK}\n"
            "/usr/bin/ld: cannot find -lgomp: No such file or directory\n"
            "collect2: error: ld returned 1 exit status\n"
            "ninja: build stopped: subcommand failed.\n",
            "/usr/bin/ld: cannot find -lgomp: No such file or directory",
        ),
        (
            "Ninja is required to load C++ extensions (pip install ninja to get it)",
            "Ninja is required to load C++ extensions (pip install ninja to get it)",
        ),
    ],
    ids=["compiler", "linker", "no ninja"],
)
def test_a_failed_build_is_told_by_the_line_that_says_what_failed(output: str, line: str) -> None:
    assert cpu_tiles.compiler_error(output) == line


# One process of a checkout's virtualenv: where its interpreter and its ``encoders`` are, then
# the tiles' library loaded (built if none is there) and called.
LOAD_IN_A_VIRTUALENV = """
import contextlib, json, sys
import torch
import encoders
from encoders import build_encoder
from encoders.layers import cpu_tiles, compiled_tiles
from harness.training.warm_up import (
    compiled_kernel_files, kernel_folder, warm_up_line, warm_up_tiles,
)
cpu = torch.device("cpu")
files = compiled_kernel_files(cpu)
encoder = build_encoder("disan", input_dim=6, hidden_dim=4)
seconds = warm_up_tiles(encoder, cpu, contextlib.nullcontext)
line = warm_up_line(seconds, compiled_kernel_files(cpu) - files, kernel_folder(cpu))
generator = torch.Generator().manual_seed(0)
a, b, v = (torch.rand(2, 3, 5, dtype=torch.float64, generator=generator) for _ in "abv")
tile = (a, b, v, torch.rand(2, 5, 5, generator=generator) < 0.7, 2.0)
ours = compiled_tiles.compiled_tile_sums(*tile)
same = all(map(torch.allclose, ours, compiled_tiles.tile_sums(*tile)))
print(json.dumps({"prefix": sys.prefix, "encoders": encoders.__file__, "same": same, "line": line}))
"""


def library_state(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` but locks, by (inode, mtime in ns): a rebuild replaces the
    library's file, and a compilation writes objects and grows ninja's log."""
    return {
        str(path): (path.stat().st_ino, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file() and not path.name.endswith(".lock")
    }


def checkout_in_its_virtualenv(source: Path, folder: Path) -> Path:
    """A copy of ``source``'s ``encoders`` and ``harness`` in ``folder``, installed as
    ``pip install -e`` installs it (a ``.pth`` naming the checkout) in a virtualenv of its own
    whose other packages (torch) are this interpreter's, named by a second ``.pth`` read after
    it (not processed: this virtualenv's editable install of the main checkout stays out).
    Returns its python."""
    checkout = folder / "checkout"
    for package in ("encoders", "harness"):  # the tiles, and the warm-up that builds them
        shutil.copytree(source / package, checkout / package, ignore=IGNORED)
    virtualenv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", virtualenv], check=True)
    python = virtualenv / "bin" / "python"
    packages = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    (Path(packages) / "a_checkout.pth").write_text(f"{checkout}\n")
    (Path(packages) / "b_packages.pth").write_text(f"{sysconfig.get_path('purelib')}\n")
    return python


IGNORED = shutil.ignore_patterns("__pycache__")
SOURCE_ROOT = ROOT  # the checkout copied twice


@pytest.mark.slow  # builds the library once (about 30 s), then three processes load it
def test_two_checkouts_in_two_virtualenvs_share_one_build(tmp_path: Path) -> None:
    """Issue 54.1: two checkouts of the same source, each in its own virtualenv, sharing one
    TORCH_EXTENSIONS_DIR, run by turns A, B, A, B: the first builds the library, the others
    load that file as it is (no file under the folder written again, none added: no rebuild,
    no new line in ninja's log), and the warm-up's line says "compiled" for the first only."""
    pythons = {name: checkout_in_its_virtualenv(SOURCE_ROOT, tmp_path / name) for name in "AB"}
    extensions = tmp_path / "extensions"
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    environment["TORCH_EXTENSIONS_DIR"] = str(extensions)
    said, states = [], []
    for name in "ABAB":
        done = subprocess.run(
            [pythons[name], "-c", LOAD_IN_A_VIRTUALENV],
            env=environment,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        said.append(json.loads(done.stdout.strip().splitlines()[-1]))
        states.append(library_state(extensions))
    for name, run in zip("ABAB", said, strict=True):  # each ran its own checkout in its own venv
        assert run["prefix"] == str(tmp_path / name / "venv"), run
        assert run["encoders"].startswith(str(tmp_path / name / "checkout")), run
        assert run["same"], run  # the library's sums are the eager tiles'
    assert [run["line"].split()[2] for run in said] == ["compiled", "reused", "reused", "reused"]
    assert len([path for path in states[0] if path.endswith(".so")]) == 1, states[0]
    assert states[0] == states[1] == states[2] == states[3]


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not reaped by its parent, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.slow  # a process that imports torch and starts a build (about 5-10 s)
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_a_build_whose_process_is_killed_stops_its_compiler(tmp_path: Path) -> None:
    """Issue 54: SIGKILL of a sanbench building the library left the compiler running (ninja and
    the compiler outlived it). A fake compiler (``CXX``) that records its pid and sleeps stands
    in for a slow one; it is gone within seconds of its builder's death."""
    pid_file = tmp_path / "compiler.pid"
    compiler = tmp_path / "slow-c++"
    compiler.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" -c "*) echo $$ > {pid_file}; exec sleep 300;; esac\n'
        'exec c++ "$@"\n'
    )
    compiler.chmod(0o755)
    environment = {
        **os.environ,
        "TORCH_EXTENSIONS_DIR": str(tmp_path / "extensions"),
        "PYTHONPATH": str(ROOT),
        "CXX": str(compiler),
    }
    script = "from encoders.layers import cpu_tiles\ncpu_tiles.load()\n"
    builder = subprocess.Popen(
        [sys.executable, "-c", script],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not pid_file.exists() or not pid_file.read_text().strip():
            assert builder.poll() is None and time.monotonic() < deadline, "no compile started"
            time.sleep(0.1)
        compiler_pid = int(pid_file.read_text())
        assert alive(compiler_pid)
    finally:
        builder.kill()
        builder.wait()
    deadline = time.monotonic() + 10
    while alive(compiler_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    stopped = not alive(compiler_pid)
    if not stopped:
        os.kill(compiler_pid, signal.SIGKILL)
    assert stopped, "the compiler outlived the process that built"


# a fresh process whose library is built (this module's pytestmark built it): threads that make
# the first call of the operators at once, past a barrier (issue 55, fifth outside check)
FIRST_CALLS_AT_ONCE = """
import threading, torch
from encoders.layers import compiled_tiles, cpu_tiles
assert cpu_tiles.library_file().is_file() and not cpu_tiles.loaded()
THREADS = 16
a, b, v = (torch.rand(2, 3, 5, dtype=torch.float64) + 0.5 for _ in "abv")
allowed = torch.ones(2, 5, 5, dtype=torch.bool)
barrier = threading.Barrier(THREADS)
errors = []
def first_call():
    barrier.wait()
    try:
        torch.ops.sanbench.tanh_tile_sums(a, b, v, allowed, 1.0)
    except Exception as error:
        errors.append(repr(error))
threads = [threading.Thread(target=first_call) for _ in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(errors), errors[:1])
"""


@pytest.mark.slow  # a process that imports torch (3-5 s)
def test_threads_that_call_the_operators_first_at_once_all_get_the_cpu_kernels() -> None:
    """Loading the library and its registering the CPU kernels are one step: a thread that
    enters the operators' Python functions while another loads waits for the load, then
    dispatches to the C++ kernels (it once raised "registered no CPU kernel": 16 threads, 6 of
    6 processes)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_CALLS_AT_ONCE],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0] == "0", done.stdout


def test_a_failed_build_is_attempted_once_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no compiler, every later load raises the first build's error at once instead of
    building again (a direct operator call took 11 s, then 0.3 s each, every time). A fresh
    copy of the module: this process has loaded the library."""
    spec = importlib.util.spec_from_file_location("fresh_cpu_tiles", cpu_tiles.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    attempts = []

    def build_without_a_compiler(library: Path) -> None:
        attempts.append(library)
        raise fresh.BuildError("c++: not found")

    monkeypatch.setattr(fresh, "_build", build_without_a_compiler)
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    for _ in range(3):
        with pytest.raises(fresh.BuildError, match="c\\+\\+: not found"):
            fresh.load()
    assert len(attempts) == 1
    assert not fresh.loaded()


@pytest.mark.slow  # opcheck's fake-tensor check of both operators (4 s at load 10)
def test_the_fake_kernels_give_the_cpu_kernels_strides_for_transposed_inputs() -> None:
    """The fake kernels' outputs have the strides of the C++ kernels' (whose key outputs are
    contiguous whatever the keys' layout): torch's fake-tensor check of opcheck, on a tile whose
    a, b and v are transposed views."""
    generator = torch.Generator().manual_seed(5)
    a, b, v, g, s = (
        torch.rand(2, n, 3, generator=generator, dtype=torch.float64).transpose(1, 2) + 0.5
        for n in (4, 9, 9, 4, 4)
    )
    allowed = torch.rand(2, 4, 9, generator=generator) < 0.7
    k2 = 10.0 * compiled_tiles.LOG2_E
    checks = ("test_schema", "test_faketensor")
    sums, grads = torch.ops.sanbench.tanh_tile_sums, torch.ops.sanbench.tanh_tile_grads
    torch.library.opcheck(sums.default, (a, b, v, allowed, k2), test_utils=checks)
    torch.library.opcheck(grads.default, (a, b, v, allowed, k2, g, s), test_utils=checks)


def test_a_process_that_waited_for_another_build_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 54g of #54, item 4: two fits building the tiles at once in a fresh cache,
    one said 'compiled in 79.2 s', the other 'reused the compiled kernels in ... (78.8 s)': its
    wait for the first's build, unsaid. Here another build holds the lock (this test) for
    0.5 s and then leaves its library; the waiting load builds nothing and says it waited, and
    the line gives the warm-up's seconds, the wait's (the fit times the warm-up)."""
    from filelock import FileLock

    from harness.training.warm_up import waited_for_build, warm_up_line

    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    monkeypatch.setattr(cpu_tiles, "_LOAD", {})
    monkeypatch.setattr(torch.ops, "load_library", lambda path: None)
    monkeypatch.setattr(cpu_tiles, "_build", lambda library: pytest.fail("built again"))
    library = cpu_tiles.library_file()
    library.parent.mkdir(parents=True)
    cpu = torch.device("cpu")
    assert not waited_for_build(cpu)
    built: list[bool] = []
    with FileLock(f"{library.parent}.lock"):  # the other process's build
        waiting = threading.Thread(target=lambda: built.append(cpu_tiles.load()))
        waiting.start()
        time.sleep(0.5)
        library.write_bytes(b"the other build's library")
    waiting.join()
    assert built == [False] and not cpu_tiles.built_here() and waited_for_build(cpu)
    assert warm_up_line(0.6, 0, "F", waited=True) == (
        "attention tiles: waited for another process's build, then reused the compiled kernels "
        "in F (0.6 s in all)"
    )
    assert warm_up_line(0.1, 0, "F") == "attention tiles: reused the compiled kernels in F (0.1 s)"
