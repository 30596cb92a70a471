"""Submit calls as submitit jobs, requeue them on preemption, wait and report each outcome."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.launch.options import LaunchOptions

TRACE_RULE = "-" * 22  # submitit frames the job's traceback with these rules


@dataclass(frozen=True)
class JobOutcome:
    """One job: its id, its return value or the error that ended it, and its log files."""

    job_id: str
    result: Any = None
    error: str | None = None
    stdout: Path | None = None
    stderr: Path | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _resumable() -> Any:
    """A ``submitit.helpers.Checkpointable`` that runs its call; imported lazily (CLI speed)."""
    from submitit.helpers import Checkpointable

    class ResumableCall(Checkpointable):
        """Runs ``call()``; on preemption or timeout submitit requeues it with the same call,
        which resumes from the result files it wrote (``Checkpointable.checkpoint``)."""

        def __call__(self, call: Callable[[], Any]) -> Any:
            return call()

    return ResumableCall


def _summary(error: Exception) -> str:
    """The job's own exception line from submitit's ``FailedJobError`` trace, else line one."""
    parts = str(error).split(TRACE_RULE)
    lines = (parts[1] if len(parts) > 2 else parts[0]).strip().splitlines()
    return lines[-1 if len(parts) > 2 else 0] if lines else type(error).__name__


def launch(
    calls: Sequence[Callable[[], Any]], options: LaunchOptions, folder: Path, name: str
) -> list[JobOutcome]:
    """Run every call as one job (one SLURM array), wait for all; logs and pickles in ``folder``."""
    if not calls:
        return []
    import submitit

    executor = submitit.AutoExecutor(folder=folder, cluster=options.launcher)
    with warnings.catch_warnings():  # local ignores SLURM-only resources and says so
        warnings.simplefilter("ignore")
        executor.update_parameters(**options.executor_parameters(name))
    runner = _resumable()
    with executor.batch():
        jobs = [executor.submit(runner(), call) for call in calls]
    outcomes = []
    for job in jobs:
        try:
            outcomes.append(JobOutcome(job.job_id, result=job.result()))
        except Exception as error:  # a job that raised, was killed or ran out of requeues
            paths = job.paths
            outcomes.append(
                JobOutcome(job.job_id, None, _summary(error), paths.stdout, paths.stderr)
            )
    return outcomes
