"""Imported first by the server process that forks the ``process`` jobs (multiprocessing's
forkserver, :mod:`harness.launch.processes`): SIGINT and SIGTERM blocked there, so that every
job forked from it starts with them blocked, whoever started the server, until its handlers are
set (docs/reliability.md). The server itself ends with its command (its pipe closes) or by
SIGKILL (``processes.end_helpers``)."""

from __future__ import annotations

import signal

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
