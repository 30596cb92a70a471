"""One Ctrl-C on ``sanbench profile``, pressed as a terminal sends it (SIGINT to the command's
process group: the sweep, its prediction processes and its measuring worker), at several
moments: exit 130, one line, no traceback from any process, and the rows written are kept."""

from __future__ import annotations

import ctypes
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from harness.memory_prediction.step import _prediction_pool
from reports.contracts.profile_run import results_file
from tests.harness.fixtures.terminal import foreground

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
SWEEP = ["profile", "--encoders", "multi_cnn,bilstm,multi_head", "--lengths", "8,16,32"]
SMALL = ["--batch-size", "4", "--dim", "32", "--repeats", "3", "--no-report", "--no-progress"]
PATIENCE_S = 600  # a loaded 2-core machine imports torch in three processes at once


def prediction_processes(sweep: subprocess.Popen) -> list[psutil.Process]:
    """The sweep's spawned prediction processes (its measuring worker is started by module)."""
    try:
        children = psutil.Process(sweep.pid).children(recursive=True)
        return [p for p in children if "spawn_main" in " ".join(p.cmdline())]
    except psutil.NoSuchProcess:
        return []


def importing_torch(sweep: subprocess.Popen) -> bool:
    """A prediction process has loaded torch's library: it runs Python code (importing the rest
    of torch, or predicting), where SIGINT raises ``KeyboardInterrupt``."""
    for process in prediction_processes(sweep):
        try:
            if "libtorch" in Path(f"/proc/{process.pid}/maps").read_text():
                return True
        except OSError:
            continue
    return False


def rows_printed(out: str) -> list[str]:
    """A point's row line (`` multi_cnn L=8    infer ok ...``), not the sweep's first line
    (``... L=8,16,32 measured``)."""
    return [line for line in out.splitlines() if re.match(r" \S+ L=\d+ ", line)]


MOMENTS: dict[str, Callable[[subprocess.Popen, Path], bool]] = {
    # the prediction processes are starting Python
    "prediction processes starting": lambda sweep, out: bool(prediction_processes(sweep)),
    "prediction processes importing torch": lambda sweep, out: importing_torch(sweep),
    # a point was measured: the worker measures the next one
    "measuring": lambda sweep, out: len(results_file(out).rows()) >= 1,
}


@pytest.mark.parametrize("moment", MOMENTS)
def test_one_ctrl_c_exits_130_without_a_traceback_and_keeps_the_rows(
    moment: str, tmp_path: Path
) -> None:
    """Issue 54.5: interrupted while predicting, the command exited 130 but printed two
    ``KeyboardInterrupt`` tracebacks of its prediction processes."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "harness.cli", *SWEEP, *SMALL, "--out", str(out)]
    popen = {"cwd": ROOT, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    sweep = foreground(command, **popen)
    try:
        deadline = time.monotonic() + PATIENCE_S
        while not MOMENTS[moment](sweep, out):
            assert sweep.poll() is None, sweep.communicate()
            assert time.monotonic() < deadline, f"{moment} never came"
            time.sleep(0.05)
        children = psutil.Process(sweep.pid).children(recursive=True)
        os.killpg(sweep.pid, signal.SIGINT)  # the terminal's Ctrl-C
        stdout, stderr = sweep.communicate(timeout=PATIENCE_S)
    finally:
        if sweep.poll() is None:
            os.killpg(sweep.pid, signal.SIGKILL)  # the test failed: leave no process behind
    assert sweep.returncode == 130, stderr
    assert "Traceback" not in stderr + stdout and "KeyboardInterrupt" not in stderr + stdout
    (line,) = stderr.strip().splitlines()
    assert line.startswith("sanbench profile: interrupted") and "--resume" in line
    assert len(results_file(out).rows()) == len(rows_printed(stdout))  # what was finished
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, alive  # no process of the sweep's outlives it


def signals_of_this_process() -> tuple[int, bool]:
    """The signal Linux sends this process when its parent dies (``PR_GET_PDEATHSIG``), and
    whether SIGINT is blocked."""
    death = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(death))
    return death.value, signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_a_prediction_process_dies_with_its_sweep_and_never_sees_sigint() -> None:
    """A sweep killed with SIGKILL left its prediction processes predicting, orphaned."""
    with _prediction_pool(1, (), None) as pool:
        assert pool.apply(signals_of_this_process) == (signal.SIGKILL, True)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # not here
