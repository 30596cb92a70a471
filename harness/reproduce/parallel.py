"""Run a preset on a few local worker processes, one thread each, through the suite's runner.

Worker ``k`` of ``n`` (:func:`harness.reproduce.worker.run_worker`, a spawned process) runs shard
``k/n`` of the grid with ``harness.suite.runner.run_shard``: rows land in
``OUT/results-k-of-n.csv``, finished runs are skipped on resume and a killed run resumes from
its ``last.ckpt``. Spawned processes (not ``harness.launch``'s submitit jobs) because they print
their progress on this console and are terminated with this process.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from harness.reproduce.preset import Preset
from harness.reproduce.worker import run_worker
from harness.suite.grid import Shard


def run_parallel(
    preset: Preset,
    *,
    out_dir: Path,
    data_dir: Path,
    embeddings: Path | None,
    workers: int,
    threads: int,
) -> list[int]:
    """Start ``workers`` processes of ``threads`` threads, wait for all; their exit codes.

    When this process is interrupted (Ctrl-C, ``RunInterruptedError`` from SIGTERM), the
    workers are terminated too; their unfinished runs resume on the next invocation.
    """
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(
            target=run_worker,
            args=(preset, Shard(k, workers), out_dir, data_dir, embeddings, threads),
            name=f"reproduce-{k}-of-{workers}",
        )
        for k in range(1, workers + 1)
    ]
    for process in processes:
        process.start()
    try:
        for process in processes:
            process.join()
        return [int(process.exitcode or 0) for process in processes]
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join()
