"""CI runs the README's test command verbatim, and the README names the fast loop."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    """The commands of the README's quick start block, comments dropped."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, "README's quick start has no bash block"
    lines = (line.split("#", 1)[0].strip() for line in block.group(1).splitlines())
    return [line for line in lines if line]


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2, commands
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    steps = [line for line in script if line.strip() and not line.lstrip().startswith("#")]
    assert steps[-1] == commands[1] == "pip install nox uv && nox -s tests"
    assert "pip install nox uv && nox -s lint" in steps[:-1]  # lint first: a style error fails fast


def test_readme_names_the_fast_loop_below_the_quick_start() -> None:
    section = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    section = section.split("\n## ", 1)[0]
    assert 'nox -s tests -- -m "not slow"' in section


@functools.cache  # nox registers each session once per process
def noxfile() -> ModuleType:
    spec = importlib.util.spec_from_file_location("noxfile", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quiet_tests_run_alone_and_a_users_marker_still_applies() -> None:
    assert noxfile().with_marker([], "not quiet") == ["-m", "(not quiet)"]
    assert noxfile().with_marker(["-m", "not slow", "-x"], "quiet") == [
        "-m",
        "(quiet) and (not slow)",
        "-x",
    ]
    assert noxfile().with_marker(["-mslow"], "not quiet") == ["-m", "(not quiet) and (slow)"]


def test_the_held_out_leg_narrows_the_instruction_set_by_one() -> None:
    """AVX2 where AVX-512 exists, SSE4.1 on AVX2; ATen's scalar kernels and 3 threads on any
    CPU (oneDNN's cap only where it has x86 names)."""
    environment = noxfile().held_out_environment
    common = {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "3", "MKL_DYNAMIC": "FALSE"}
    assert environment({"sse4_1", "avx2", "avx512f"}) == {**common, "ONEDNN_MAX_CPU_ISA": "AVX2"}
    assert environment({"sse4_1", "avx2"}) == {**common, "ONEDNN_MAX_CPU_ISA": "SSE41"}
    assert environment({"asimd"}) == common


@pytest.mark.slow  # a Python process importing torch: 2-4 s
def test_a_process_started_in_the_held_out_leg_computes_on_the_legs_threads() -> None:
    """Issue 54: in the leg (OMP_NUM_THREADS=3 on 2 cores) a process a test started computed on
    2 threads: torch takes MKL's count, which MKL caps at the cores while it may choose its
    threads itself (MKL_DYNAMIC)."""
    environment = noxfile().held_out_environment(set())
    done = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
        env={**os.environ, **environment},
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(done.stdout) == int(environment["OMP_NUM_THREADS"])


def test_the_held_out_leg_is_slow_work_that_a_users_marker_selects() -> None:
    """The fast loop leaves the leg out, a bare run and ``-m slow`` keep it, and any other
    expression applies to its tests as they are."""
    leg = noxfile().held_out_marker
    own = "(held_out and not quiet and (leg or not slow))"
    assert leg([]) == ["-m", own]
    assert leg(["-m", "not slow", "-x"]) == ["-m", f"{own} and (not held_out)", "-x"]
    assert leg(["-mslow"]) == ["-m", f"{own} and (held_out)"]
    assert leg(["-m", "postgres or not slowest"]) == ["-m", f"{own} and (postgres or not slowest)"]


@pytest.mark.held_out
def test_the_held_out_setup_is_the_one_torch_runs_on() -> None:
    """In the leg, ATen runs its scalar kernels on the leg's threads: the environment reached
    torch and no test changed the threads."""
    import torch

    capability = os.environ.get("ATEN_CPU_CAPABILITY")
    if capability is None:
        pytest.skip("not in the held-out leg (nox -s tests sets ATEN_CPU_CAPABILITY)")
    assert torch.backends.cpu.get_cpu_capability() == capability.upper()
    assert torch.get_num_threads() == int(os.environ["OMP_NUM_THREADS"])
