"""Which run a ``process`` job is working on, so that the command can say what a job it killed
(the third Ctrl-C) left: its run resumes from its last checkpoint, or starts again (issue 54)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from reports.contracts.fit_folder import FitRunFolder

JOB_RUN_ENV = "SANBENCH_JOB_RUN"  # a job's file naming its run folder (set by its launcher)


def job_run_file(folder: Path, job: str) -> Path:
    """The file in the launch ``folder`` where ``job`` names the run folder it is working on."""
    return folder / f"{job}.run"


def note_run(out_dir: Path) -> None:
    """In a ``process`` job, name ``out_dir`` as the run it is working on now; else nothing.
    A launch folder gone (removed by hand, or by a command that judged it dead) loses only the
    note: the run goes on (until 2026-11-30 its trial failed with a traceback)."""
    noted = os.environ.get(JOB_RUN_ENV)
    if noted:
        with contextlib.suppress(OSError):
            Path(noted).write_text(str(Path(out_dir).absolute()))


def noted_runs(folder: Path, name: str) -> set[Path]:
    """The run folders the ``process`` jobs ``name`` this command launched in ``folder`` last
    named (resolved; the last launch's: each launch removes earlier ones' notes). Another
    command's on the same folder are its own (:func:`harness.quiet.command_folder`)."""
    from harness.quiet import launched_folder

    mine = launched_folder(folder)
    if mine is None:
        return set()
    return {Path(noted.read_text()).resolve() for noted in mine.glob(f"{name}-*-of-*.run")}


def has_checkpoint(folder: Path, job: str) -> bool:
    """Whether the run ``job`` last worked on holds the checkpoint it resumes from
    (``last.ckpt``); False when it named none."""
    noted = job_run_file(folder, job)
    if not noted.is_file():
        return False
    return FitRunFolder(Path(noted.read_text())).last_checkpoint.is_file()
