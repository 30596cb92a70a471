"""The intra-op threads of jobs that run at once on this machine.

Jobs of the ``process`` and ``local`` kinds run side by side: each computing on every core
would share the cores by turns, and a kernel that meets its threads at a barrier many times a
call waits a time slice at each (oneDNN's LSTM, a parallel region per time step, ran a call of
1 s in 36-104 s beside another such process). So each job gets the cores shared out, at least
one; a SLURM job computes on the cores of its own allocation (``--slurm-cpus``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def shared_threads(jobs: int) -> int:
    """This machine's cores shared among ``jobs`` jobs running at once (at least 1 each)."""
    return max(1, (os.cpu_count() or 1) // max(1, jobs))


def thread_environment(threads: int) -> dict[str, str]:
    """The variables a process reads for its thread pools before it imports torch."""
    return dict.fromkeys(THREAD_VARIABLES, str(threads))


def on_threads(call: Callable[[], Any], threads: int) -> Any:
    """``call()`` computing on ``threads`` threads (and any process it starts)."""
    os.environ.update(thread_environment(threads))
    import torch

    torch.set_num_threads(threads)
    return call()
