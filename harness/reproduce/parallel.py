"""Run a preset on a few local worker processes, one thread each, through the suite's runner.

Worker ``k`` of ``n`` (``python -m harness.reproduce.worker``) runs shard ``k/n`` of the grid
with ``harness.suite.runner.run_shard``: rows land in ``OUT/results-k-of-n.csv``, finished
runs are skipped on resume and a killed run resumes from its ``last.ckpt``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.reproduce.preset import Preset

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")


def worker_command(
    preset: Preset, shard: str, out_dir: Path, data_dir: Path, embeddings: Path | None
) -> list[str]:
    command = [sys.executable, "-m", "harness.reproduce.worker", "--preset"]
    command += [json.dumps(preset.to_dict()), "--shard", shard, "--out", str(out_dir)]
    command += ["--data-dir", str(data_dir)]
    return command + (["--embeddings", str(embeddings)] if embeddings else [])


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

    When this process is interrupted (Ctrl-C, ``SystemExit`` from SIGTERM), the workers are
    terminated too; their unfinished runs resume on the next invocation.
    """
    env = {**os.environ, **dict.fromkeys(THREAD_VARIABLES, str(threads))}
    processes = [
        subprocess.Popen(
            worker_command(preset, f"{k}/{workers}", out_dir, data_dir, embeddings), env=env
        )
        for k in range(1, workers + 1)
    ]
    try:
        return [process.wait() for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait()
