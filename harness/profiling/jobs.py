"""A profile sweep as submitit jobs (``sanbench profile --launcher local|slurm``): one job per
encoder variant, each :func:`harness.profiling.run.run_sweep` of that encoder into
``OUT/jobs/<variant>/``, then the rows merged into ``OUT/profile.csv``.

A job is the same library call as an in-process sweep, so it predicts, measures, survives OOMs
and resumes exactly as one does; a preempted job is requeued and resumes from its own CSV. The
merge appends the rows ``OUT/profile.csv`` lacks, so re-running the command after a failed or
killed job adds its missing points and nothing twice.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.profiling.run import one_encoder, run_sweep
from harness.profiling.sweep import SweepConfig
from reports.contracts.profile_run import results_file

JOBS_FOLDER = "jobs"


def job_folder(out: Path, label: str) -> Path:
    """``OUT/jobs/<label>`` with the variant's options made file-name safe."""
    return out / JOBS_FOLDER / re.sub(r"[^A-Za-z0-9._=-]+", "_", label)


def run_encoder(config: SweepConfig, label: str, out: Path, command: str) -> Path:
    """The job: the sweep of one encoder variant into ``out`` (resumed if it holds rows)."""
    return run_sweep(one_encoder(config, label), out, command)


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
