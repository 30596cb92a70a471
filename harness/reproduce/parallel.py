"""Run a preset on a few local worker processes, one thread each, through the suite's runner.

Worker ``k`` of ``n`` (:func:`harness.reproduce.worker.run_worker`, a spawned process) runs shard
``k/n`` of the grid with ``harness.suite.runner.run_shard``: rows land in
``OUT/results-k-of-n.csv``, finished runs are skipped on resume and a killed run resumes from
its ``last.ckpt``. Spawned processes (not ``harness.launch``'s submitit jobs) because they print
their progress on this console and stop with this process: one Ctrl-C stops all of them.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing import resource_tracker
from pathlib import Path

from harness.errors import RunInterruptedError
from harness.reproduce.preset import Preset
from harness.reproduce.worker import run_worker
from harness.suite.grid import Shard
from harness.training.interrupt import resume_command

SAVE_SECONDS = 300.0  # how long the workers get to finish a step and save it


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

    When this process is interrupted (Ctrl-C, ``RunInterruptedError`` from SIGTERM), each worker
    gets the same signal once and saves the run in progress; then
    :class:`RunInterruptedError` (exit 130/143) names the command that resumes. Nothing is
    recorded as failed.
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
    try:
        # A Ctrl-C while the workers start is acted on once they have all started. They start
        # with SIGINT blocked (a spawned process inherits the starting thread's mask), so one
        # that still starts up waits for its handler (run_worker) instead of printing a
        # traceback from multiprocessing's bootstrap. Here the signal is only recorded meanwhile:
        # the mask is per thread, and another thread of this process may take it. The resource
        # tracker is started first: starting it unblocks SIGINT when it is done.
        # A command started with SIGINT ignored (a shell's background job: `nohup ... &`) keeps
        # ignoring it, as Python does, and its workers inherit the ignore (run_worker keeps it).
        received: list[int] = []
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
        try:
            resource_tracker.ensure_running()
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            for process in processes:
                process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            signal.signal(signal.SIGINT, previous)
        if received:
            raise KeyboardInterrupt
        for process in processes:
            process.join()
    except (KeyboardInterrupt, RunInterruptedError) as error:
        signum = getattr(error, "signum", signal.SIGINT)
        stop_workers(processes, signum)
        raise RunInterruptedError(
            f"{signal.Signals(signum).name}: stopped; the runs in progress saved their "
            f"last.ckpt\nresume with: {resume_command()}",
            signum,
        ) from None
    finally:
        for process in processes:
            if process.is_alive():  # only when stopping them failed
                process.kill()
                process.join()
    return [int(process.exitcode or 0) for process in processes]


def stop_workers(processes: list, signum: int, seconds: float = SAVE_SECONDS) -> None:
    """Send ``signum`` once to each live worker (it finishes its step, saves ``last.ckpt`` and
    exits) and wait up to ``seconds`` for them; a second Ctrl-C here stops them at once."""
    started = [process for process in processes if process.pid is not None]
    for process in started:
        if process.is_alive():
            os.kill(process.pid, signum)
    deadline = time.monotonic() + seconds
    for process in started:  # SIGTERM may stop this process before it started them all
        process.join(max(0.0, deadline - time.monotonic()))
