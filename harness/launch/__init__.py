"""Run pieces of work elsewhere: ``process`` (spawned processes of this command, on this
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

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.launch.options import LaunchOptions
from harness.launch.outcomes import JobOutcome, report_outcomes

__all__ = ["JobOutcome", "LaunchOptions", "launch", "report_outcomes"]


def launch(
    calls: Sequence[Callable[[], Any]],
    options: LaunchOptions,
    folder: Path,
    name: str,
    environment: Mapping[str, str] | None = None,
) -> list[JobOutcome]:
    """Run every call as one job of ``options.launcher``'s kind and wait for all; their logs,
    pickles and results go to ``folder``. ``environment``: variables set in each ``process``
    job before its call is unpickled (submitit jobs inherit this process's)."""
    if not calls:
        return []
    from harness.redaction import resume_command

    if options.launcher == "process":
        from harness.launch.processes import launch_processes

        return launch_processes(calls, Path(folder), name, environment, resume_command)
    from harness.launch.submitit_jobs import launch_submitit

    return launch_submitit(calls, options, Path(folder), name)
