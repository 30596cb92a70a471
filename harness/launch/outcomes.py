"""What a launched job gave back (:class:`JobOutcome`), and the one report of them all."""

from __future__ import annotations

import signal
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import RunFailedError
from harness.interrupts import stop_word


@dataclass(frozen=True)
class Interrupted:
    """A job's result when a signal stopped its call: after the call saved what it could
    (``saved``), or before anything was (before the call had set a handler of its own, or
    before training: in the sanity check)."""

    message: str
    saved: bool = True
    cut: bool = True  # False: stopped outside its work (none was cut short, nothing to save)


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
        return self.error is None and not self.interrupted

    @property
    def interrupted(self) -> bool:
        return isinstance(self.result, Interrupted)


@dataclass(frozen=True)
class JobWords:
    """How the stop lines of one kind of command name what its jobs do (one wording per kind,
    :data:`RUNS`, :data:`POINTS`): ``work``, what a signal outside of cuts nothing short;
    ``saving``, what the jobs do after the first Ctrl-C; ``killed``, what a second one then
    loses. Until 2026-12-01 profile's jobs said they saved runs and lost steps (outside check at
    9564b86 item 3): a sweep keeps its finished points, as rows."""

    work: str
    saving: str
    killed: str

    def outside(self, signum: int) -> str:
        """What a job says of a stop by ``signum`` outside its work."""
        return f"{signal.Signals(signum).name}: stopped outside {self.work}, none was cut short"

    def saving_line(self) -> str:
        """What the command says of a Ctrl-C while its jobs stop."""
        return f"sanbench: the jobs are {self.saving}; Ctrl-C again to kill them ({self.killed})"


RUNS = JobWords("a run's training", "saving their runs", "unsaved steps lost")  # fit's jobs
POINTS = JobWords("a point's measurement", "ending their sweeps", "their finished points kept")


def stop_line(
    stopped: Sequence[JobOutcome], total: int, signum: int, saved: str, resume: str
) -> str:
    """The one line of a command whose jobs a signal stopped (``saved``: :func:`what_was_saved`),
    its word the signal's (:func:`harness.interrupts.stop_word`), and the command that resumes."""
    return (
        f"{stop_word(signum)}: {len(stopped)} of {total} jobs stopped, {saved}\n"
        f"resume with: {resume}"
    )


def what_was_saved(
    stopped: Sequence[JobOutcome], killed: Collection[str] = (), resumable: Collection[str] = ()
) -> str:
    """What the stopped jobs saved, as far as this command knows: a job stopped before training
    (before its call set a handler of its own, or in the sanity check) saved nothing; one
    stopped outside its work (between runs: ``cut`` False) cut nothing short; one the
    signal killed gave no result, and one this command killed (``killed``, by id: a third
    Ctrl-C) while it saved lost the steps since its run's last checkpoint (``resumable``, by
    id), or, its run having none, starts it again (until 2026-11-30 no job's fate was said then,
    and then every such run was said to resume from a checkpoint, also one that had none)."""
    outside = sum(o.interrupted and o.result.saved and not o.result.cut for o in stopped)
    saved = sum(o.interrupted and o.result.saved for o in stopped) - outside
    if outside == len(stopped):  # until 2026-12-01 "their runs saved", of jobs with no run
        return "none was cut short"  # (outside check 15y, item 3)
    if saved == len(stopped):
        return "their runs saved"
    before = sum(o.interrupted and not o.result.saved for o in stopped)
    cut = [o.job_id for o in stopped if not o.interrupted and o.job_id in killed]
    parts = {
        f"{saved} with their runs saved": saved,
        f"{outside} outside their work (none cut short)": outside,
        f"{before} before training (nothing saved)": before,
        f"{len(cut)} killed while saving (the third Ctrl-C): {_killed_runs(cut, resumable)}": cut,
        f"{len(stopped) - saved - outside - before - len(cut)} without a result (ended by the "
        "signal)": len(stopped) - saved - outside - before - len(cut),
    }
    return ", ".join(part for part, count in parts.items() if count)


def _killed_runs(cut: Sequence[str], resumable: Collection[str]) -> str:
    """What the runs of the killed jobs ``cut`` do next: resume from their last checkpoints
    (the jobs of ``resumable``), or start again (no checkpoint yet)."""
    resume = sum(job in resumable for job in cut)
    if resume == len(cut):
        return "their runs resume from their last checkpoints, the steps since lost"
    if not resume:
        return "their runs had no checkpoint yet and start again"
    return (
        f"{resume} resume from their last checkpoints (the steps since lost), "
        f"{len(cut) - resume} had none and start again"
    )


def report_outcomes(
    outcomes: Sequence[JobOutcome],
    *,
    labels: Sequence[str] | None = None,
    describe: Callable[[Any], str] | None = None,
    resume: str = "rerun the same command to finish",
    log: Callable[[str], None] = print,
    finished: str | None = None,
) -> None:
    """One line per job (``describe(result)`` for a finished one, the error and its log for a
    dead one); :class:`RunFailedError` naming how many died and how to ``resume``, or, when the
    work asked for was done all the same (``finished`` says how: a study whose other workers
    continued a dead one's trial), a line naming how many died and ``finished``."""
    for number, outcome in enumerate(outcomes):
        name = f"job {outcome.job_id}"
        if labels is not None:
            name += f" ({labels[number]})"
        if outcome.ok:
            log(f"{name}: {describe(outcome.result) if describe else 'done'}")
        else:
            logs = outcome.stderr or outcome.stdout
            log(f"{name} died: {outcome.error} ({f'log: {logs}' if logs else 'no log file'})")
    died = [outcome for outcome in outcomes if not outcome.ok]
    if died:
        dead = f"{len(died)} of {len(outcomes)} jobs died (logs above)"
        if finished is None:
            raise RunFailedError(f"{dead}; {resume}")
        log(f"{dead}; {finished}")
