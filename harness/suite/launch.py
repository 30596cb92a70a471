"""A suite as submitit jobs: the grid split into ``jobs`` shards, one job per unfinished shard.

Job ``K`` of ``N`` runs ``run_shard`` for shard ``K/N`` and writes ``results-K-of-N.csv``, the
file ``--shard K/N`` writes: the jobs share nothing but ``OUT``. A job that is killed, preempted
or requeued runs its shard again, which skips every cell with an ``ok`` row.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.launch import JobOutcome, LaunchOptions, launch
from harness.suite.grid import RunSpec, Shard
from harness.suite.runner import FitFn, finished_keys, run_shard


def pending_shards(runs: Sequence[RunSpec], jobs: int, out_dir: Path) -> list[Shard]:
    """The shards ``K/jobs`` that still hold a cell without an ``ok`` row."""
    done = finished_keys(out_dir)
    shards = [Shard(index, jobs) for index in range(1, jobs + 1)]
    return [s for s in shards if any(run.key not in done for run in s.select(runs))]


def launch_suite(
    runs: Sequence[RunSpec],
    options: LaunchOptions,
    *,
    out_dir: Path,
    fit: FitFn,
    data_dir: Path,
    embeddings: Path | None,
    overrides: Mapping[str, Any],
) -> list[JobOutcome]:
    """Submit one job per unfinished shard (``options.jobs``, default one per cell) and wait."""
    jobs = min(options.jobs or len(runs), len(runs))
    calls = [
        functools.partial(
            run_shard,
            list(runs),
            shard=shard,
            out_dir=Path(out_dir),
            fit=fit,
            data_dir=data_dir,
            embeddings=embeddings,
            overrides=dict(overrides),
        )
        for shard in pending_shards(runs, jobs, Path(out_dir))
    ]
    return launch(calls, options, folder=Path(out_dir) / "jobs", name="sanbench-suite")
