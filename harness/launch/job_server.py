"""Imported first by the server process that forks the ``process`` jobs (multiprocessing's
forkserver, :mod:`harness.launch.processes`): SIGINT blocked there, so that every job forked
from it starts with SIGINT blocked, whoever started the server (docs/reliability.md)."""

from __future__ import annotations

import signal

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
