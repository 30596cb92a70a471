"""The intra-op threads of jobs that run at once on this machine.

Jobs of the ``process`` and ``local`` kinds run side by side: each computing on every core
would share the cores by turns, and a kernel that meets its threads at a barrier many times a
call waits a time slice at each (oneDNN's LSTM, a parallel region per time step, ran a call of
1 s in 36-104 s beside another such process). So each job gets the cores shared out, at least
one; a SLURM job computes on the cores of its own allocation (``--slurm-cpus``).

The share is decided once, when a command first plans its jobs, and recorded in its
manifest (:func:`planned_threads`): a resume launches only the jobs left, and sharing the
cores among those would run them on other thread counts than the uninterrupted command
(a kernel's sums split otherwise: other bits).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reports.contracts.manifest import read_manifest_if_any, record_in_manifest

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (``taskset``, a container's cpuset),
    not the machine's count, which ``os.cpu_count`` gives."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def shared_threads(jobs: int) -> int:
    """The usable cores shared among ``jobs`` jobs running at once (at least 1 each)."""
    return max(1, usable_cores() // max(1, jobs))


class ThreadsChangedWarning(UserWarning):
    """A resume whose jobs compute on other thread counts than the first launch's."""


def planned_threads(out: Path, kind: str, jobs: int) -> int:
    """Each of a plan's ``jobs`` jobs' threads: those recorded in ``out``'s manifest (of
    ``kind``) when the same plan was first launched on a machine of as many cores, else this
    machine's cores shared (:func:`shared_threads`), recorded. When that gives another count
    than the recorded one (other cores, other ``--jobs``), it warns that the runs still to do
    will not be bit-identical to an uninterrupted command's."""
    plan = {"jobs": jobs, "cores": usable_cores()}
    recorded = read_manifest_if_any(out, kind).get("threads")
    if recorded and {key: recorded.get(key) for key in plan} == plan:
        return recorded["per_job"]
    threads = shared_threads(jobs)
    if recorded and recorded.get("per_job") != threads:
        warnings.warn(
            ThreadsChangedWarning(
                f"the jobs first ran on {recorded.get('per_job')} threads each "
                f"({recorded.get('jobs')} jobs, {recorded.get('cores')} cores); now {threads} "
                f"({jobs} jobs, {plan['cores']} cores): the runs still to do will not be "
                "bit-identical to an uninterrupted command's"
            ),
            stacklevel=2,
        )
    record_in_manifest(out, kind, threads={"per_job": threads, **plan})
    return threads


def thread_environment(threads: int) -> dict[str, str]:
    """The variables a process reads for its thread pools before it imports torch."""
    return dict.fromkeys(THREAD_VARIABLES, str(threads))


def on_threads(call: Callable[[], Any], threads: int) -> Any:
    """``call()`` computing on ``threads`` threads (and any process it starts)."""
    os.environ.update(thread_environment(threads))
    import torch

    torch.set_num_threads(threads)
    return call()
