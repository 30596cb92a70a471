"""A profile sweep as one job per encoder variant (``--launcher``): each job runs
``harness.profiling.sweep.run_sweep`` of its variant into ``OUT/jobs/<variant>/`` on its own
node, and their rows are merged into ``OUT/profile.csv``."""

from __future__ import annotations

import dataclasses
import functools
import re
import shlex
from pathlib import Path
from typing import Any

import torch
from rich.console import Console

from harness.errors import RunInterruptedError
from harness.launch import POINTS, LaunchOptions, launch, report_outcomes
from harness.profiling.sweep import run_sweep, stopped_line, stopped_words
from harness.profiling.sweep_config import SweepConfig
from harness.profiling.sweep_manifest import jobs_environment, record_environment, write_manifest
from reports.contracts.profile_run import profile_csv, results_file

JOBS_FOLDER = "jobs"  # OUT/jobs/<variant>/: one job's sweep, merged into OUT/profile.csv


def run_as_jobs(
    config: SweepConfig,
    out: Path,
    options: LaunchOptions,
    command: str,
    console: Console,
    recorded: dict[str, Any],
    config_file: Path | None = None,
) -> None:
    """One job per encoder variant (:func:`run_encoder`, the same :func:`run_sweep` of one
    encoder into :func:`job_folder`, resolving the device and budget on its node; a requeued
    job resumes from its own CSV), rows merged into ``out/profile.csv``. The manifest records
    the sweep as asked (``--device auto`` stays auto) and the jobs' environment (their
    devices), not this machine's. A resume launches only the variants with a point left
    (:func:`unfinished`): no job that imports torch to find nothing to do. ``config_file``: as
    :func:`write_manifest` takes it."""
    labels = [spec.label for spec in config.encoders]
    folders = [job_folder(out, label) for label in labels]
    write_manifest(out, config, jobs_environment(folders), command, recorded, config_file)
    left = unfinished(config, out)
    calls = [
        functools.partial(run_encoder, config, label, job_folder(out, label), command)
        for label in left
    ]
    if not left:
        console.print(f"every encoder's points are in {out.absolute()}: no job to launch")
    # each measuring worker times on the threads it is asked for (or torch's default here, or
    # a SLURM job's own cores), however many jobs run: a point timed while others run is
    # flagged as contended, never re-threaded
    threads = config.threads or (None if options.launcher == "slurm" else torch.get_num_threads())
    try:
        outcomes = launch(
            calls,
            options,
            folder=out / JOBS_FOLDER / "submitit",
            name="sanbench-profile",
            threads=threads,
            words=POINTS,  # a sweep keeps rows, not runs
        )
    except RunInterruptedError as stopped:
        # the sweep's own line, over the rows the jobs kept (until 2026-12-01 "interrupted: 3 of
        # 3 jobs stopped, their runs saved" with no row anywhere, and a resume command without
        # --resume: outside check 10y item 1)
        merge(out, labels)
        raise RunInterruptedError(stopped_line(out, stopped.signum), stopped.signum) from None
    console.print(f"{merge(out, labels)} rows merged into {profile_csv(out).absolute()}")
    record_environment(out, folders)
    report_outcomes(
        outcomes,
        labels=left,
        resume=f"rerun with --resume --out {shlex.quote(str(out))} to finish",
        log=console.print,
    )


def job_folder(out: Path, label: str) -> Path:
    """``OUT/jobs/<label>`` with the variant's options made file-name safe."""
    return out / JOBS_FOLDER / re.sub(r"[^A-Za-z0-9._=-]+", "_", label)


def unfinished(config: SweepConfig, out: Path) -> list[str]:
    """The variants of ``config`` whose job folder lacks a row of one of their points (the
    points a resumed job would run: ``sweep.Sweep.todo``)."""
    left = []
    for spec in config.encoders:
        results = results_file(job_folder(out, spec.label))
        done = results.done_keys()
        points = one_encoder(config, spec.label).points()
        if any(results.key(dataclasses.asdict(point)) not in done for point in points):
            left.append(spec.label)
    return left


def run_encoder(config: SweepConfig, label: str, out: Path, command: str) -> Path:
    """The job: the sweep of one encoder variant into ``out`` (resumed if it holds rows).
    Stopped, it says its rows kept but no command: the sweep's own line names the one that
    resumes every job (until 2026-12-01 each job printed a resume of its own folder, issue 54)."""
    try:
        return run_sweep(one_encoder(config, label), out, command)
    except RunInterruptedError as stopped:
        raise RunInterruptedError(stopped_words(out, stopped.signum), stopped.signum) from None


def one_encoder(config: SweepConfig, label: str) -> SweepConfig:
    """``config`` restricted to the encoder variant ``label``."""
    return dataclasses.replace(
        config, encoders=tuple(s for s in config.encoders if s.label == label)
    )


def merge(out: Path, labels: list[str]) -> int:
    """Append the job folders' rows that ``out/profile.csv`` lacks; returns how many."""
    merged = results_file(out)
    done = merged.done_keys()
    added = 0
    for label in labels:
        for row in results_file(job_folder(out, label)).rows():
            if merged.key(row) not in done:
                merged.append(row)
                done.add(merged.key(row))
                added += 1
    return added
