"""The ``process`` kind: each call in a process of this machine, printing on this console and
stopping with this command.

The processes are forked from one server process per command (multiprocessing's forkserver)
that has imported torch and Lightning once, when this command has imported them: a spawned
process imported them again for each job (Lightning alone: ~9 s of CPU). Each job is still a
process of its own (a job killed or crashed takes no other down) with the environment and
``sys.path`` of this command as it launches, as a spawned one had.

Ctrl-C: each process leaves the terminal's process group as it starts (``os.setpgrp``), so a
terminal's SIGINT reaches this process only, which passes exactly one on to each live process:
the call saves what it can (a fit its ``last.ckpt``) and its process exits. The processes start
with SIGINT and SIGTERM blocked (a forked process inherits the server's mask:
``harness.launch.job_server`` blocks them there, and the server is started with SIGINT blocked),
so one still in multiprocessing's bootstrap acts on it only once its handler is set, without a
traceback; a command started with SIGINT ignored (``nohup ... &``) keeps ignoring it in every
process. A job's SIGTERM handler stays from then to its exit: outside a run's training its
first SIGTERM stops it, later ones are absorbed (:class:`harness.interrupts.TerminatedOnce`).

A call is pickled here and unpickled in its process after ``environment`` is set (the thread
counts of a torch the server imported: :func:`harness.launch.threads.on_threads`). Its return value
or error comes back through ``FOLDER/<job>.result.pkl``; an internal error's traceback goes to
``FOLDER/<job>.err``, never to the console.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import multiprocessing
import os
import pickle
import select
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from multiprocessing import forkserver, reduction, resource_tracker
from pathlib import Path
from typing import Any

from harness.errors import RunInterruptedError, failure_line
from harness.interrupts import INTERRUPTED_STATUS, TerminatedOnce
from harness.launch.job_run import JOB_RUN_ENV, has_checkpoint, job_run_file
from harness.launch.outcomes import (
    RUNS,
    Interrupted,
    JobOutcome,
    JobWords,
    stop_line,
    what_was_saved,
)

SAVE_SECONDS = 300.0  # how long the processes get to finish a step and save it
# imported once by the server that forks the jobs, each when this command has imported it (a
# memory study's jobs, which train nothing, never pay Lightning's import)
SERVER_IMPORTS = ("torch", "lightning.pytorch")


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process (a profile's measuring worker, a prediction process)
    when the process that started it dies (e.g. killed -9)."""
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL)


class CommandConsole:
    """This command's stdout and stderr as a job starts, passed to the job: a job forked from a
    server has the server's, those of the server's start (pytest's capture of an earlier test,
    or a redirect since). Pickled as the descriptors themselves (multiprocessing's ``DupFd``,
    while the job starts)."""

    def __reduce__(self) -> tuple[Callable[..., None], tuple[Any, Any]]:
        return _use_console, (reduction.DupFd(1), reduction.DupFd(2))


def _use_console(stdout: Any, stderr: Any) -> None:
    """In the job, as it unpickles its arguments: its stdout and stderr are the command's."""
    for target, passed in ((1, stdout), (2, stderr)):
        descriptor = passed.detach()
        os.dup2(descriptor, target)
        os.close(descriptor)


def run_in_process(
    call_bytes: bytes,
    environment: dict[str, str],
    folder: str,
    job: str,
    console: object,
    command_pid: int,
    words: JobWords = RUNS,
) -> None:
    """The job process's target: leave the terminal's group, set ``environment``, run the
    call and write its outcome to ``FOLDER/<job>.result.pkl``. ``console`` has already made
    the command's stdout and stderr the job's (:class:`CommandConsole`). The job ends with its
    command (:func:`terminated_with`). SIGTERM has a handler of the job's from its start to its
    exit, and SIGINT too unless the command ignores it (:class:`harness.interrupts.TerminatedOnce`;
    both blocked until then), which says a stop outside its work in ``words``."""
    terminated = TerminatedOnce(functools.partial(_stopped_outside, words, signal.SIGTERM))
    interrupted = TerminatedOnce(functools.partial(_stopped_outside, words, signal.SIGINT))
    signal.signal(signal.SIGTERM, terminated)
    os.setpgrp()
    terminated_with(command_pid)
    from harness.quiet import hide_lightning_tips, hide_srun_hint

    hide_lightning_tips()  # a job's console shows sanbench's lines, as the command's does
    hide_srun_hint()
    result_path, error_path = Path(folder) / f"{job}.result.pkl", Path(folder) / f"{job}.err"
    status = 0
    try:
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, interrupted)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
        os.environ.clear()  # the command's, not the server's as it started
        os.environ.update(environment)
        os.environ[JOB_RUN_ENV] = str(job_run_file(Path(folder), job))
        try:
            outcome: tuple[str, Any] = ("ok", pickle.loads(call_bytes)())
        finally:  # the call has ended: a signal from now on never cuts its outcome short
            terminated.stop_under_way()
            interrupted.stop_under_way()
    except RunInterruptedError as stopped:  # a handler's: the call saved what it could
        message = str(stopped).splitlines()[0]
        sys.stdout.write(f"{job}: {message}\n")  # one write: a kill leaves no line unended
        sys.stdout.flush()
        kind = "outside" if isinstance(stopped, StoppedOutsideWorkError) else "interrupted"
        outcome, status = ((kind if stopped.saved else "stopped", message), INTERRUPTED_STATUS)
    except Exception as error:  # reported by the launcher, traceback in the job's .err file
        if terminated.raised or interrupted.raised:  # what the signal broke (a library that
            signum = signal.SIGTERM if terminated.raised else signal.SIGINT  # wrapped its error)
            outcome, status = ("outside", words.outside(signum)), INTERRUPTED_STATUS
        else:
            with contextlib.suppress(OSError):  # the folder gone: said as the result is
                error_path.write_text(traceback.format_exc())
            outcome, status = ("error", failure_line(error)), 1
    try:
        _write_result(result_path, outcome)
    except OSError as error:  # its launch folder gone: the command finds no result
        print(f"sanbench: {job}: {_unwritable(error)}", file=sys.stderr, flush=True)
        status = 1
    sys.exit(status)


def _write_result(path: Path, outcome: tuple[str, Any]) -> None:
    try:
        data = pickle.dumps(outcome)
    except Exception as error:  # an unpicklable result
        data = pickle.dumps(("error", f"result not picklable: {error}"))
    path.write_bytes(data)


def _unwritable(error: OSError) -> str:
    """A job's one line when its outcome cannot be written to its launch folder (removed by
    hand, or by another command: until 2026-11-30 one in another pid namespace removed a live
    command's, and its jobs printed tracebacks)."""
    return (
        f"its outcome could not be written ({error.strerror}: {error.filename}); "
        "what it finished is in the run folders (a study's trials: in its storage)"
    )


def _stopped_outside(words: JobWords, signum: int) -> RunInterruptedError:
    """What a job's first SIGTERM or SIGINT raises outside its work (``words.outside``; a run's
    training: before a run's handler is set, after it is put back: its scores written, the next
    run started): the runs
    that finished are recorded, one that trained has its weights in its ``last.ckpt``. Until
    2026-11-30 a SIGTERM there ended the job by the signal itself (no result, the locks' PID
    files left), and a SIGINT raised KeyboardInterrupt, said as 'SIGINT before its run
    started, nothing saved' of a run that had trained."""
    return StoppedOutsideWorkError(words.outside(signum), signum)


class StoppedOutsideWorkError(RunInterruptedError):
    """A job's stop outside its work (:func:`_stopped_outside`): nothing was cut short."""


def terminated_with(command_pid: int) -> None:
    """SIGTERM to this job (it saves its run and ends, as at a SIGTERM to its command) once the
    command process ``command_pid`` is gone, by a ``kill -9`` too: a job never trains on with
    nobody to report to. (Its parent is multiprocessing's fork server, which outlives the
    command then, so Linux's parent-death signal does not serve.) Linux: the command's pidfd
    becomes readable as it ends; elsewhere it is looked for every second."""

    def watch() -> None:
        try:
            select.select([os.pidfd_open(command_pid)], [], [])
        except (AttributeError, OSError):  # no pidfd here, or the command is gone already
            while _running(command_pid):
                time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="sanbench-command-watch", daemon=True).start()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process of that number
        return True
    return True


def ended_how(exit_code: int | None) -> str:
    """How a process without a result ended: the signal that killed it (multiprocessing's
    exit code is minus its number), else its exit code."""
    if exit_code is not None and exit_code < 0:
        try:
            return f"process killed by {signal.Signals(-exit_code).name}"
        except ValueError:
            return f"process killed by signal {-exit_code}"
    return f"process ended with exit code {exit_code}"


def _outcome(job: str, folder: Path, exit_code: int | None) -> JobOutcome:
    result_path, error_path = folder / f"{job}.result.pkl", folder / f"{job}.err"
    logs = error_path if error_path.is_file() else None
    if not result_path.is_file():
        return JobOutcome(job, error=f"{ended_how(exit_code)}, no result")
    kind, value = pickle.loads(result_path.read_bytes())
    if kind == "ok":
        return JobOutcome(job, result=value)
    if kind in ("interrupted", "stopped", "outside"):
        saved, cut = kind != "stopped", kind == "interrupted"
        return JobOutcome(job, result=Interrupted(value, saved=saved, cut=cut))
    return JobOutcome(job, error=value, stderr=logs)


def launch_processes(
    calls: Sequence[Callable[[], Any]],
    folder: Path,
    name: str,
    environment: Mapping[str, str] | None = None,
    resume: Callable[[], str] | None = None,
    words: JobWords = RUNS,
) -> list[JobOutcome]:
    """Run each call in a process of its own, wait for all, return their outcomes in order.

    An interrupt here (Ctrl-C, or the :class:`RunInterruptedError` of SIGTERM) sends the same
    signal once to each live process, waits for them to save, then raises
    :class:`RunInterruptedError` naming ``resume()``, the command that resumes. ``words``: how
    the stop lines name what the jobs do.
    """
    atexit.unregister(end_helpers)  # once (run before multiprocessing's own exit function)
    atexit.register(end_helpers)
    context = multiprocessing.get_context("forkserver")
    preload = [name for name in SERVER_IMPORTS if name in sys.modules]
    context.set_forkserver_preload(["harness.launch.job_server", *preload])
    from harness.quiet import command_folder, said_environment

    # this command's own folder: its jobs' files and the warnings said once per command
    folder = command_folder(folder)
    command_environment = {**os.environ, **(environment or {}), **said_environment()}
    jobs = [f"{name}-{k}-of-{len(calls)}" for k in range(1, len(calls) + 1)]
    for job in jobs:  # an earlier launch's outcomes (of this command) never pass for this one's
        (folder / f"{job}.result.pkl").unlink(missing_ok=True)
        (folder / f"{job}.err").unlink(missing_ok=True)
    for noted in folder.glob(f"{name}-*-of-*.run"):  # an earlier launch of any number of jobs
        noted.unlink()
    processes = [
        context.Process(
            target=run_in_process,
            args=(
                pickle.dumps(call),
                command_environment,
                str(folder),
                job,
                CommandConsole(),
                os.getpid(),
                words,
            ),
            name=job,
        )
        for call, job in zip(calls, jobs, strict=True)
    ]
    killed: set[str] = set()  # the jobs a third Ctrl-C killed while they saved
    try:
        _start(processes)
        for process in processes:
            process.join()
        signum = None
    except (KeyboardInterrupt, RunInterruptedError) as error:
        signum = getattr(error, "signum", signal.SIGINT)
        try:
            stop(processes, signum, words=words)
        except KeyboardInterrupt:  # the third Ctrl-C: the jobs still saving are killed
            killed = {process.name for process in processes if process.is_alive()}
    finally:
        for process in processes:
            if process.is_alive():  # a third Ctrl-C, or stopping them failed
                process.kill()
                process.join()
    ended = zip(jobs, processes, strict=True)
    outcomes = [_outcome(job, folder, process.exitcode) for job, process in ended]
    stopped = [o for o in outcomes if o.interrupted or (signum is not None and not o.ok)]
    resumable = {job for job in killed if has_checkpoint(folder, job)}
    if signum is not None or stopped:  # also when signalled from outside this command
        signum = signal.SIGINT if signum is None else signum
        saved = what_was_saved(stopped, killed, resumable)
        again = resume() if resume else "the same command"
        raise RunInterruptedError(stop_line(stopped, len(outcomes), signum, saved, again), signum)
    return outcomes


def end_helpers() -> None:
    """End multiprocessing's fork server and resource tracker, if this command started them,
    and wait for them (at its exit): left to end on their own once it had exited, the server,
    which holds torch and Lightning, outlived it by seconds (about 3 s after a SIGTERM). The
    server holds nothing by then (its jobs have ended) and is killed; the tracker ends as it
    does, freeing what a job left registered. (multiprocessing's own, private, ways to stop
    them: they are started again when needed.)"""
    server = forkserver._forkserver
    if server._forkserver_pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server._forkserver_pid, signal.SIGKILL)
        server._stop()
    resource_tracker._resource_tracker._stop()


def _start(processes: Sequence[Any]) -> None:
    """Start every process with SIGINT blocked; a Ctrl-C meanwhile is acted on once all have
    started (the mask is per thread and another thread of this process may take the signal, so
    it is only recorded here). The resource tracker starts first: starting it unblocks SIGINT."""
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


def stop(
    processes: Sequence[Any], signum: int, seconds: float = SAVE_SECONDS, words: JobWords = RUNS
) -> None:
    """Send ``signum`` once to each live process and wait up to ``seconds`` for them to save and
    exit. A second SIGTERM is not acted on: the jobs have theirs and are saving (one 0.05-0.2 s
    after the first killed a job mid-save in 2 of 4 tries, its checkpoint left a ``.part`` file
    and its locks' PID files stale). Nor is a second Ctrl-C, which says so: a third kills the
    jobs (until 2026-11-30 the second did, and a double Ctrl-C left their PID files stale)."""
    started = [process for process in processes if process.pid is not None]
    main = threading.current_thread() is threading.main_thread()  # signal.signal's only thread
    previous = signal.signal(signal.SIGTERM, lambda received, frame: None) if main else None
    previous_int = signal.getsignal(signal.SIGINT) if main else None
    if main and previous_int is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _again_kills(words))
    try:
        for process in started:
            if process.is_alive():
                os.kill(process.pid, signum)
        deadline = time.monotonic() + seconds
        for process in started:  # SIGTERM may stop this process before it started them all
            process.join(max(0.0, deadline - time.monotonic()))
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
            signal.signal(signal.SIGINT, previous_int)


def _again_kills(words: JobWords) -> Callable[[int, object], None]:
    """:func:`stop`'s SIGINT handler: the first Ctrl-C it gets is said (``words.saving_line``)
    and waited through, the next raises ``KeyboardInterrupt`` (the jobs are killed)."""
    came: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if came:
            raise KeyboardInterrupt
        came.append(signum)
        print(words.saving_line(), file=sys.stderr, flush=True)

    return handler
