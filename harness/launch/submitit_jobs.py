"""The ``local`` and ``slurm`` kinds: calls as submitit jobs, requeued on preemption, waited for.

Ctrl-C with ``local`` jobs: a terminal sends SIGINT to its whole foreground process group, which
holds submitit's local controllers and their tasks. A controller that gets it prints a traceback
and kills its task a second later, mid-checkpoint. So the controllers start with SIGINT ignored
(``local_setup``), each task moves to a process group of its own and writes its pid, and the
launcher, the one process the terminal still reaches, forwards exactly one SIGINT to each task.
The task's run saves what it can and the job returns :class:`Interrupted`; once every job has
stopped, :func:`launch_submitit` raises :class:`~harness.errors.RunInterruptedError` (exit
status 130).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness.errors import RunInterruptedError
from harness.interrupts import stop_word
from harness.launch.options import LaunchOptions
from harness.launch.outcomes import Interrupted, JobOutcome, stop_line, what_was_saved

TRACE_RULE = "-" * 22  # submitit frames the job's traceback with these rules
PID_SUFFIX = "_task.pid"  # in the jobs folder: a local task's pid, where the launcher signals


def _resumable() -> Any:
    """A ``submitit.helpers.Checkpointable`` that runs its call; imported lazily (CLI speed)."""
    from submitit.helpers import Checkpointable

    class ResumableCall(Checkpointable):
        """Runs ``call()``; on preemption or timeout submitit requeues it with the same call,
        which resumes from the result files it wrote (``Checkpointable.checkpoint``)."""

        def __call__(self, call: Callable[[], Any]) -> Any:
            pid_file = None
            if os.environ.get("SUBMITIT_EXECUTOR") == "local":
                pid_file = _listen_to_the_launcher_only()
            try:
                return call()
            except RunInterruptedError as stopped:  # the call's handler: it saved what it could
                return Interrupted(str(stopped), saved=stopped.saved)
            except KeyboardInterrupt:  # before the call had a handler of its own
                return Interrupted("SIGINT before its run started, nothing saved", saved=False)
            finally:
                if pid_file is not None:
                    pid_file.unlink(missing_ok=True)

    return ResumableCall


def _listen_to_the_launcher_only() -> Path:
    """In a local task: leave the terminal's process group, take SIGINT back from the
    controller's ignore, and write this pid where :func:`_forward_interrupt` reads it."""
    import submitit

    os.setpgrp()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    environment = submitit.JobEnvironment()
    pid_file = environment.paths.folder / f"{environment.job_id}{PID_SUFFIX}"
    pid_file.write_text(str(os.getpid()))
    return pid_file


def _forward_interrupt(jobs: Sequence[Any], folder: Path, signum: int) -> None:
    """One ``signum`` (SIGINT, SIGTERM) to each unfinished local task, as soon as it has
    written its pid."""
    pending = [job for job in jobs if not job.done()]
    while pending:
        for job in list(pending):
            pid_file = folder / f"{job.job_id}{PID_SUFFIX}"
            if pid_file.is_file() and pid_file.read_text().isdigit():
                with contextlib.suppress(ProcessLookupError):  # it has just ended
                    os.kill(int(pid_file.read_text()), signum)
                pending.remove(job)
            elif job.done():
                pending.remove(job)
        time.sleep(0.1)


def _wait(jobs: Sequence[Any]) -> None:
    """Until every job has finished (a second Ctrl-C stops waiting)."""
    while not all(job.done() for job in jobs):
        time.sleep(0.2)


def _summary(error: Exception) -> str:
    """The job's own exception line from submitit's ``FailedJobError`` trace, else line one."""
    parts = str(error).split(TRACE_RULE)
    lines = (parts[1] if len(parts) > 2 else parts[0]).strip().splitlines()
    return lines[-1 if len(parts) > 2 else 0] if lines else type(error).__name__


def launch_submitit(
    calls: Sequence[Callable[[], Any]], options: LaunchOptions, folder: Path, name: str
) -> list[JobOutcome]:
    """Run every call as one job (one SLURM array), wait for all; logs and pickles in ``folder``."""
    import submitit

    executor = submitit.AutoExecutor(folder=folder, cluster=options.cluster)
    with warnings.catch_warnings():  # local ignores SLURM-only resources and says so
        warnings.simplefilter("ignore")
        executor.update_parameters(**options.executor_parameters(name))
    runner = _resumable()
    with executor.batch():
        jobs = [executor.submit(runner(), call) for call in calls]
    signum = None
    try:
        _wait(jobs)
    except (KeyboardInterrupt, RunInterruptedError) as error:  # Ctrl-C, SIGTERM (harness.cli)
        signum = getattr(error, "signum", signal.SIGINT)
        if options.cluster != "local":
            raise RunInterruptedError(
                f"{stop_word(signum)}; the {options.cluster} jobs keep running (cancel them "
                f"there)\ncollect them with: {_resume_command()}",
                signum,
            ) from None
        _forward_interrupt(jobs, Path(folder), signum)
        _wait(jobs)
    outcomes = []
    for job in jobs:
        try:
            outcomes.append(JobOutcome(job.job_id, result=job.result()))
        except Exception as error:  # a job that raised, was killed or ran out of requeues
            paths = job.paths
            outcomes.append(
                JobOutcome(job.job_id, None, _summary(error), paths.stdout, paths.stderr)
            )
    stopped = [o for o in outcomes if o.interrupted or (signum is not None and not o.ok)]
    if signum is not None or stopped:
        signum = signal.SIGINT if signum is None else signum
        line = stop_line(stopped, len(outcomes), signum, what_was_saved(stopped), _resume_command())
        raise RunInterruptedError(line, signum)
    return outcomes


def _resume_command() -> str:
    from harness.redaction import resume_command

    return resume_command()
