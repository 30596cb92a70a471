"""Ctrl-C while sanbench cannot stop cleanly: held while it starts (imports, argument checks),
where a SIGTERM ends it at once in one line (nothing was saved yet); noted while a command
runs, so that what it breaks is reported as the interrupt it was (``harness.program``,
``harness.cli``). Imports nothing of sanbench's or of the libraries'."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType


def signal_status(signum: int) -> int:
    """The exit status of a process a signal stopped, as a shell reports it: 128 + the signal."""
    return 128 + signum


INTERRUPTED_STATUS = signal_status(signal.SIGINT)  # 130
INTERRUPTED = "sanbench: interrupted"
TERMINATED_STATUS = signal_status(signal.SIGTERM)  # 143
TERMINATED_AT_START = "sanbench: terminated while starting; nothing was saved"
# blocked by harness.program from its first line until harness.cli.main holds them
STARTING_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
# set once the command has returned or raised (harness.cli.main): its status is known, and a
# signal then changes nothing, neither as the command's blocks unwind (:func:`_raising`'s
# handlers ignore it: until 2026-12-01 a SIGTERM there turned a finished fit, or a refusal of
# bad words, into "terminated", status 143; outside check 9y item 1) nor after
# (harness.cli.outside_the_command); entering a :func:`_raising` block clears it
STATUS_KNOWN = threading.Event()


def stop_word(signum: int) -> str:
    """The word of a stop by ``signum`` as every command's line says it: ``terminated`` for
    SIGTERM, else ``interrupted`` (until 2026-12-01 a ``suite`` or ``reproduce`` whose process
    jobs a SIGTERM stopped said ``interrupted``, outside check at 9564b86 item 1)."""
    return "terminated" if signum == signal.SIGTERM else "interrupted"


def said_by(command: str, line: str) -> str:
    """``line`` (one of ``sanbench: ...``) said by ``command`` when it is known (``sanbench
    fit: ...``), as every message of a command names it."""
    return line.replace("sanbench:", f"sanbench {command}:", 1) if command else line


@contextlib.contextmanager
def interrupt_held(
    command: Callable[[], str] = str, unsaved: Callable[[], str] = str
) -> Iterator[Callable[[], bool]]:
    """While the block runs, a first SIGINT is noted (the callable says whether one came) and a
    second ends the process at once with :data:`INTERRUPTED` and ``unsaved()`` (what the
    command says of what it saved: ``; nothing was saved``); a SIGTERM ends it at once with
    :data:`TERMINATED_AT_START` (a user's kill: nothing has started to save). Both lines name
    ``command()``, the command as its messages name it once known ("": not yet): until
    2026-12-01 a SIGTERM while a command's modules loaded said ``sanbench: terminated ...``
    where a Ctrl-C named the command (outside check 14 item 4)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    came: list[int] = []

    def note(signum: int, frame: object) -> None:
        if came:
            print(said_by(command(), INTERRUPTED) + unsaved(), file=sys.stderr, flush=True)
            os._exit(INTERRUPTED_STATUS)
        came.append(signum)

    def terminate(signum: int, frame: object) -> None:
        print(said_by(command(), TERMINATED_AT_START), file=sys.stderr, flush=True)
        os._exit(TERMINATED_STATUS)

    previous = signal.signal(signal.SIGINT, note)
    previous_term = signal.signal(signal.SIGTERM, terminate)
    try:
        yield lambda: bool(came)
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        signal.signal(signal.SIGINT, previous)


# the code of Python's import machinery: a frame of it on the stack means an import runs
IMPORT_MACHINERY = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")
RETRY_SECONDS = 0.05  # how often a signal held during an import is tried again


def importing(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside an import (a module's code, or what it calls)."""
    while frame is not None:
        if frame.f_code.co_filename in IMPORT_MACHINERY:
            return True
        frame = frame.f_back
    return False


def unwinding(error: BaseException) -> bool:
    """Whether ``error`` is on its way out where the main thread runs: the exception being
    handled (a ``finally``, an ``except`` block, a context manager's exit) is it or was raised
    while it was handled."""
    current, seen = sys.exc_info()[1], set()
    while current is not None and id(current) not in seen:
        if current is error:
            return True
        seen.add(id(current))
        current = current.__context__ or current.__cause__
    return False


# the packages of sanbench's own code: an error of a signal caught there is the command's
OWN_PACKAGES = ("harness", "encoders", "reports")


def taken(error: BaseException) -> bool:
    """Whether sanbench's own code caught ``error`` (the outermost frame it reached): then the
    command has it; else a library did, and swallowed it if it is not on its way out."""
    trace = error.__traceback__
    module = "" if trace is None else trace.tb_frame.f_globals.get("__name__", "")
    return module != __name__ and module.partition(".")[0] in OWN_PACKAGES


@contextlib.contextmanager
def _raising(signum: int, error: Callable[[], BaseException]) -> Iterator[Callable[[], bool]]:
    """While the block runs, ``signum`` raises ``error()``, except inside an import: there it is
    held and sent again to the main thread every :data:`RETRY_SECONDS` (the handler then in
    place takes it: a command's own, if it has put one), so it is raised once the import ends,
    or as the block ends. An exception raised inside an import leaves a library half made, or
    a library swallows it: torch's C start-up imports numpy and goes on without it, so a Ctrl-C
    then was lost and ``sanbench encoders`` ran on to its table and status 0 (issue 54, outside
    check 7y item 1). Once raised, the signal is sent again likewise and raised anew if a
    library caught the error (neither on its way out, :func:`unwinding`, nor :func:`taken` by
    sanbench's code): jsonargparse's ``except Exception``, reading a module's source for
    ``fit``'s options, swallowed a SIGTERM's and the fit trained to its end, status 0 (issue
    54, outside check at 70c9de7). The callable says whether the signal came. Main thread
    only; the handler that was in place comes back after. A signal is never sent again to a
    command's own handler once sanbench's code has the error: until 2026-12-01 one Ctrl-C to
    ``profile --launcher process`` was taken as a second by the jobs' stop ("Ctrl-C again to
    kill them")."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    came: list[int] = []
    held: list[int] = []  # came inside an import, not raised yet
    retrying: list[bool] = []  # a retry is due
    raised: list[BaseException] = []  # the errors the signal raised
    ended = threading.Event()
    lock = threading.Lock()  # no retry once the block has ended
    main = threading.get_ident()

    def again() -> None:
        retrying.clear()
        with lock:
            if ended.is_set():
                return
            if signal.getsignal(signum) is not handler:  # a command's own takes it
                if raised and not held and taken(raised[-1]):
                    return  # the command has the error: a signal sent now is a second one
                held.clear()
            signal.pthread_kill(main, signum)  # a real one: a wait in a call ends

    def retry() -> None:
        if not ended.is_set() and not retrying:
            retrying.append(True)
            timer = threading.Timer(RETRY_SECONDS, again)
            timer.daemon = True
            timer.start()

    def handler(signum_: int, frame: FrameType | None) -> None:
        if STATUS_KNOWN.is_set():  # the block unwinds a command that has ended
            return
        came.append(signum_)
        if raised and taken(raised[-1]):  # the command has it: its stop runs
            return
        if raised and unwinding(raised[-1]):
            retry()  # a library may yet swallow it
            return
        if not ended.is_set() and not importing(frame):
            held.clear()
            raised.append(error())
            retry()  # raised anew if a library swallows it
            raise raised[-1]
        held.append(signum_)
        retry()

    STATUS_KNOWN.clear()  # a command runs the block
    previous = signal.signal(signum, handler)
    try:
        yield lambda: bool(came)
    finally:
        with lock:
            ended.set()
        signal.signal(signum, previous)  # a signal pending reaches the handler first
    if held and not STATUS_KNOWN.is_set():
        raise error()


def interrupt_noted() -> contextlib.AbstractContextManager[Callable[[], bool]]:
    """While the block runs, SIGINT raises ``KeyboardInterrupt`` as Python's own handler does
    (inside an import, as the import ends: :func:`_raising`), and the callable says whether
    one came: an error the interrupt caused further on is still the user's Ctrl-C. A
    command's own handler (training's, the sweep's) replaces this one while it runs."""
    return _raising(signal.SIGINT, KeyboardInterrupt)


def terminate_raises(
    error: Callable[[], BaseException],
) -> contextlib.AbstractContextManager[Callable[[], bool]]:
    """While the block runs, SIGTERM raises ``error()`` as Ctrl-C raises ``KeyboardInterrupt``
    (what the command runs is stopped as a Ctrl-C stops it: its jobs get the signal once and are
    waited for; inside an import, as the import ends), and the callable says whether one came.
    Main thread only; the handler that was in place comes back after. A command's own handler
    (training's) replaces this one while it runs."""
    return _raising(signal.SIGTERM, error)


class TerminatedOnce:
    """A job process's SIGTERM (or SIGINT) handler for its whole life
    (``harness.launch.processes``): the first signal raises ``error()`` (outside training:
    training's handler takes it there) and any later one is absorbed, so that a second one (a
    user's, or the job's own once its command is gone) never cuts short what the first one's
    stop saves. A handler that takes a signal in its place (training's) calls
    :meth:`stop_under_way` as it hands the signals back; so does the job once its call has
    ended and it only writes its outcome."""

    def __init__(self, error: Callable[[], BaseException]) -> None:
        self.error = error
        self.raised = False  # this handler raised error()
        self.under_way = False  # a SIGTERM was acted on, or the job is ending anyway

    def stop_under_way(self) -> None:
        """From now on every SIGTERM is absorbed."""
        self.under_way = True

    def __call__(self, signum: int, frame: object) -> None:
        if self.under_way:
            return
        self.under_way = self.raised = True
        raise self.error()


@contextlib.contextmanager
def interrupt_deferred() -> Iterator[None]:
    """A SIGINT during the block is acted on as it leaves it, by the handler that was in place
    (Python's raises ``KeyboardInterrupt``): two steps that belong together (a row written to
    a file and printed) are never split by a Ctrl-C. SIGINT ignored stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):  # SIG_IGN (``nohup``), SIG_DFL
        yield
        return
    came: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if came:
        previous(signal.SIGINT, None)
