"""Run pieces of work elsewhere: ``process`` (processes of this command, on this
console), ``local`` (submitit jobs on this machine) or ``slurm`` (a SLURM job array).

    from harness.launch import LaunchOptions, launch, report_outcomes
    outcomes = launch([functools.partial(fn, ...), ...], options, folder=OUT / "jobs", name="suite")
    report_outcomes(outcomes, describe=str)  # one line per job; RunFailedError if one died

Each call is one job; calls must be picklable (module-level functions and their arguments) and
resumable: a preempted, killed or interrupted job runs again with the same call, which must skip
the work it already wrote. One Ctrl-C stops every job once, each saving what it can, and
:func:`launch` raises :class:`~harness.errors.RunInterruptedError` (exit status 130).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness.launch.options import LaunchOptions
from harness.launch.outcomes import POINTS, RUNS, JobOutcome, JobWords, report_outcomes
from harness.launch.threads import on_threads, shared_threads, thread_environment

__all__ = ["POINTS", "RUNS", "JobOutcome", "JobWords", "LaunchOptions", "launch", "report_outcomes"]


def launch(
    calls: Sequence[Callable[[], Any]],
    options: LaunchOptions,
    folder: Path,
    name: str,
    threads: int | None = None,
    words: JobWords = RUNS,
) -> list[JobOutcome]:
    """Run every call as one job of ``options.launcher``'s kind and wait for all; their logs,
    pickles and results go to ``folder``. ``threads``: each job's intra-op threads; by default,
    on this machine (``process``, ``local``), its cores shared among these jobs
    (:mod:`harness.launch.threads`), and a SLURM job's own cores. A command whose resume
    launches only the jobs left passes its whole plan's (``threads.planned_threads``).
    ``words``: how the stop lines of ``process`` jobs name what they do (:data:`RUNS`: fit's
    runs; a sweep's, :data:`POINTS`)."""
    if not calls:
        return []
    from harness.redaction import resume_command

    if threads is None and options.launcher != "slurm":
        threads = shared_threads(len(calls))
    if threads is not None:
        calls = [functools.partial(on_threads, call, threads) for call in calls]
    if options.launcher == "process":
        from harness.launch.processes import launch_processes

        environment = thread_environment(threads) if threads is not None else {}
        return launch_processes(calls, Path(folder), name, environment, resume_command, words)
    from harness.launch.submitit_jobs import launch_submitit

    return launch_submitit(calls, options, Path(folder), name)
