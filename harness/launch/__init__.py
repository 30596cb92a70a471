"""Run pieces of work as submitit jobs, on this machine (``local``) or on SLURM (``slurm``).

    from harness.launch import LaunchOptions, launch
    outcomes = launch([functools.partial(fn, ...), ...], options, folder=OUT / "jobs", name="suite")

Each call is one job (a SLURM job array when ``slurm``); calls must be picklable (module-level
functions and their arguments) and resumable: a preempted or timed-out job is requeued with
the same call, which must skip the work it already wrote.
"""

from harness.launch.jobs import JobOutcome, launch
from harness.launch.options import LaunchOptions

__all__ = ["JobOutcome", "LaunchOptions", "launch"]
