"""One worker of ``sanbench reproduce``: shard K/N of the preset's grid, in a spawned process.

Exit status 1 when a run failed (its row and ``error.txt`` say why); 128 + the signal's number
when the parent stopped it (the run in progress saved its ``last.ckpt``). A worker runs in a
process group of its own, so a terminal's Ctrl-C reaches the parent only, which passes one
signal on to each worker (``harness.reproduce.parallel``).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from harness.errors import RunInterruptedError
from harness.quiet import hide_lightning_tips, hide_srun_hint
from harness.reproduce.preset import Preset
from harness.suite.grid import Shard

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")
INTERRUPTED = 130  # 128 + SIGINT


def run_worker(
    preset: Preset,
    shard: Shard,
    out_dir: Path,
    data_dir: Path,
    embeddings: Path | None,
    threads: int,
) -> None:
    """Run shard ``shard`` of ``preset`` on ``threads`` threads (the process's target)."""
    os.setpgrp()  # the terminal's Ctrl-C goes to the parent, which passes it on once
    try:
        # SIGINT was blocked since the start (harness.reproduce.parallel): one that came in
        # meanwhile (the terminal's or the parent's) stops this worker here, quietly; unless the
        # command ignores SIGINT (started in the background), whose ignore this worker inherited
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        os.environ.update(dict.fromkeys(THREAD_VARIABLES, str(threads)))
        hide_lightning_tips()
        hide_srun_hint()
        import torch

        from harness.suite.runner import run_shard
        from harness.training.run import run_fit

        torch.set_num_threads(threads)
        summary = run_shard(
            preset.grid(),
            shard=shard,
            out_dir=out_dir,
            fit=run_fit,
            data_dir=data_dir,
            embeddings=embeddings,
            overrides=preset.overrides,
            log=lambda line: print(line, flush=True),
        )
    except RunInterruptedError as stopped:  # the parent prints the command that resumes
        print(f"worker {shard.label}: {str(stopped).splitlines()[0]}", flush=True)
        sys.exit(stopped.exit_status)
    except KeyboardInterrupt:  # a signal outside a run's training
        print(f"worker {shard.label}: interrupted outside a run's training", flush=True)
        sys.exit(INTERRUPTED)
    print(
        f"worker {shard.label}: {len(summary.ran)} ran, {len(summary.skipped)} already "
        f"done, {len(summary.failed)} failed",
        flush=True,
    )
    if summary.failed:
        sys.exit(1)
