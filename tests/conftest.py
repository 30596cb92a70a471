"""Settings of every test: the compiled kernels of the commands the tests run stay out of the
user's ``~/.cache/sanbench`` (the commands put them there, docs/training.md)."""

from __future__ import annotations

import gc
import getpass
import os
import signal
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# folders shared by test sessions as by any torch program of this user (inductor's own default,
# and its like for C++ extensions): a test session compiles the attention tiles (the CPU
# library, the CUDA kernels) once per machine, not once per session
# hypothesis's default deadline (200 ms an example) is a timed unit test: a loaded machine (CI's
# 2 cores under 2 workers and their processes) failed a line reader's property on time alone.
# Time is measured in benchmarks (docs/benchmarks.md), never asserted here.
settings.register_profile("sanbench", deadline=None)
settings.load_profile("sanbench")

for variable, name in (
    ("TORCHINDUCTOR_CACHE_DIR", "torchinductor"),
    ("TORCH_EXTENSIONS_DIR", "torch_extensions"),
):
    os.environ.setdefault(
        variable, str(Path(tempfile.gettempdir()) / f"{name}_{getpass.getuser()}")
    )


def pytest_configure(config) -> None:
    """Under ``pytest -n N`` each worker, and every process it starts, computes on one thread:
    N workers of as many threads as cores each share the cores by turns, and oneDNN's LSTM (a
    parallel region per time step) then waits a time slice at each step's barrier: a kernel
    calibration of 1 s took 36-104 s beside another worker's."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ["OMP_NUM_THREADS"] = "1"
        import torch

        torch.set_num_threads(1)


def pytest_collection_finish(session) -> None:
    """Every object the test modules' imports made (torch, Lightning, scipy, matplotlib: about
    400,000) is moved out of the garbage collector's reach (``gc.freeze``): each full collection,
    Python's own and the tests' ``gc.collect()`` before a memory measurement, walked them all
    again (0.15-0.3 s each), and so did the interpreter's exit. Objects made by the tests are
    collected as before."""
    gc.freeze()


@pytest.fixture(autouse=True)
def _signal_handling_kept() -> object:
    """A test leaves SIGINT's and SIGTERM's handlers, and the signals blocked, as it found them:
    one left changed makes a later test of the same worker see another handler or a Ctrl-C held
    (CI: a deferred Ctrl-C that did not raise). Restored, and the leaking test fails."""
    numbers = (signal.SIGINT, signal.SIGTERM)
    before = {number: signal.getsignal(number) for number in numbers}
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    changed = [number.name for number in numbers if signal.getsignal(number) is not before[number]]
    for number in numbers:
        signal.signal(number, before[number])
    now_blocked = signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if now_blocked != blocked:
        changed.append(f"the blocked signals ({sorted(s.name for s in now_blocked ^ blocked)})")
    assert not changed, f"the test left {', '.join(changed)} changed"
