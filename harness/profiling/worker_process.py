"""The sweep's handle on one worker process (``harness.profiling.worker``).

Why not the spawned processes or submitit jobs that run sanbench's other work: the measuring
worker is long-lived (it measures point after point of one encoder without re-importing torch)
and must start from a fresh ``exec`` whose environment holds the chosen allocator's
``LD_PRELOAD`` before the interpreter loads; its death by the OOM killer is a result (an
``oom`` row), read from its exit status and log, and the next point gets a new worker. One JSON
line per request and reply over its pipes keeps it independent of pickling.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.measurement.profiled_step import Point
from harness.profiling.allocator import preload_env
from harness.profiling.measure import OOM_MARKERS
from reports.contracts.profile_run import ERROR, OOM


def point_request(point: Point, dtype: str, repeats: int) -> dict[str, Any]:
    """What the worker is asked for one point (``worker.run_point`` answers it): the point, its
    precision and its timed repeats."""
    return {"point": asdict(point), "dtype": dtype, "repeats": repeats}


def say_warnings(relayed: list[list[str]]) -> None:
    """Give again here the warnings the worker relayed (module, class name, text), for this
    process's console to say each once (Python's registry: one text of a class, once), as a
    fit says them."""
    for module, name, text in relayed:
        warnings.warn(text, getattr(importlib.import_module(module), name), stacklevel=2)


class WorkerDiedError(RuntimeError):
    """The worker exited without replying; ``status`` is 'oom' or 'error'."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


class WorkerProcess:
    """Starts a worker and exchanges JSON lines with it; ``wait_ready`` returns its start-up
    message, so that the caller can work while the worker imports torch."""

    def __init__(self, config: dict[str, Any], preload: str | None, log_path: Path):
        self.log_path = log_path
        self._log_start = log_path.stat().st_size if log_path.exists() else 0
        env = preload_env(dict(os.environ), preload)
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "harness.profiling.worker", json.dumps(config)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=env,
                text=True,
                bufsize=1,
                process_group=0,  # out of the terminal's group: Ctrl-C is the sweep's to handle
            )
        self.ready: dict[str, Any] | None = None

    def wait_ready(self) -> dict[str, Any]:
        if self.ready is None:
            self.ready = self._receive()
            if not self.ready.get("ready"):
                raise RuntimeError(f"worker did not start: {self.ready}")
        return self.ready

    def _log_tail(self, chars: int = 400) -> str:
        with self.log_path.open("rb") as log:
            log.seek(self._log_start)
            return log.read().decode(errors="replace")[-chars:].strip()

    def _receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if line:
            message = json.loads(line)
            say_warnings(message.pop("warnings", []))
            return message
        code = self.process.wait()
        tail = self._log_tail()
        if code == -signal.SIGKILL:
            raise WorkerDiedError(OOM, "worker killed by SIGKILL (the kernel's OOM killer?)")
        status = OOM if any(marker in tail for marker in OOM_MARKERS) else ERROR
        raise WorkerDiedError(status, f"worker exited with code {code}; log tail: {tail}")

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one request and wait for its reply (``WorkerDiedError`` if the worker dies)."""
        self.wait_ready()
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass  # _receive reports how the worker ended
        return self._receive()

    def kill(self) -> None:
        """End the worker now (interrupted sweep)."""
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        """Close stdin (the worker exits after its current point) or kill it if it lingers."""
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
