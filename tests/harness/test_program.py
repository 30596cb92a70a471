"""A Ctrl-C at any moment of sanbench's start-up (issue 54.5, found from outside: at 2 s a
traceback from jsonargparse's import, at 6-7 s "internal error" from a half-imported numpy):
exit 130 with sanbench's one line, or the command's own end when the signal came after it.
The moments are counted from when the program's first line runs: before it, the interpreter
itself starts (its site module, the virtualenv's path files), which no program can guard (a
Ctrl-C 0.05 s after the launch stopped Python's own start-up with "Fatal Python error")."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the console script's code, saying when it starts (the interpreter is up by then)
PROGRAM = [
    sys.executable,
    "-c",
    "from harness.program import entry; print('up', flush=True); entry()",
]
INTERRUPTED = "sanbench encoders: interrupted"  # named at every moment (outside check 8y item 4)
TERMINATED = "sanbench: terminated while starting; nothing was saved"  # no command known
# a SIGTERM while sanbench starts names the command too (outside check 14 item 4)
TERMINATED_ENCODERS = "sanbench encoders: terminated while starting; nothing was saved"
MOMENTS = 20  # Ctrl-Cs over a command's life: the lost one's window was ~0.1-0.4 s of 2-4 s


@dataclass
class Signalled:
    """One ``sanbench encoders`` given a SIGINT ``after`` seconds from its first line: when
    (None: not signalled, it had ended), and when its table began (None: no table)."""

    after: float | None
    signalled_at: float | None
    table_at: float | None
    status: int
    stdout: str
    stderr: str


def signalled_encoders(after: float | None) -> Signalled:
    """``sanbench encoders`` given a SIGINT ``after`` seconds from its first line, if still
    running then (None: no signal)."""
    process = subprocess.Popen(
        [*PROGRAM, "encoders"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdout is not None and process.stdout.readline() == "up\n"
    lines: list[str] = []
    table_at: list[float] = []

    def read(stream: IO[str]) -> None:
        for line in stream:
            table_at.append(time.monotonic())
            lines.append(line)

    reader = threading.Thread(target=read, args=(process.stdout,))
    reader.start()
    signalled_at = None
    if after is not None:
        time.sleep(after)
        if process.poll() is None:
            signalled_at = time.monotonic()
            process.send_signal(signal.SIGINT)
    assert process.stderr is not None
    stderr = process.stderr.read()
    process.wait(timeout=600)
    reader.join()
    return Signalled(
        after,
        signalled_at,
        table_at[0] if table_at else None,
        process.returncode,
        "".join(lines),
        stderr,
    )


@pytest.mark.slow  # 21 processes that import torch, two at a time: 32 CPU s, 75 s at load 9
def test_a_ctrl_c_at_any_moment_of_a_short_command_ends_it_in_one_line() -> None:
    """A Ctrl-C at moments spread over the whole life of ``sanbench encoders`` (issue 54.5 at
    2 s and 6-7 s: a traceback, "internal error"; outside check 7y item 1: a Ctrl-C while
    torch's C start-up imported numpy was swallowed, and the command ran on to its table and
    status 0): status 130 with one line, or 0 with the table only when the
    signal came once the table was out (or the command had ended)."""
    started = time.monotonic()
    whole = signalled_encoders(None)  # how long the command lives here and now
    assert whole.status == 0 and "disan" in whole.stdout, whole.stderr
    life = 1.2 * (time.monotonic() - started)  # two at a time: a little slower
    offset = random.random()
    moments = [life * (i + offset) / MOMENTS for i in range(MOMENTS)]
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(signalled_encoders, moments))
    for run in runs:
        said = (run.after, run.status, run.stderr)
        assert "Traceback" not in run.stderr and "internal error" not in run.stderr, said
        if run.status == 0:  # the table came before the signal, or the command had ended
            assert "disan" in run.stdout, said
            assert run.signalled_at is None or (
                run.table_at is not None and run.table_at <= run.signalled_at
            ), said
        else:
            assert run.status == 130, said
            assert run.stderr.strip() == INTERRUPTED, said  # one line


@pytest.mark.parametrize("after", [0.05, 0.15])
def test_a_ctrl_c_while_the_program_imports_names_the_command(after: float) -> None:
    """A Ctrl-C in the program's first moments, while it imports its command line (held by
    ``harness.program``, before ``harness.cli`` knows the command): status 130 and the line
    that a later Ctrl-C gives, naming the command (it said ``sanbench: interrupted`` until
    2026-12-01; outside check 8y item 4)."""
    process = subprocess.Popen(
        [*PROGRAM, "encoders"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdout is not None and process.stdout.readline() == "up\n"
    time.sleep(after)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=600)
    assert (process.returncode, stderr.strip(), stdout) == (130, INTERRUPTED, ""), stderr


def test_the_program_holds_a_first_ctrl_c_and_reports_it() -> None:
    from harness.interrupts import interrupt_held

    before = signal.getsignal(signal.SIGINT)
    with interrupt_held() as interrupted:
        assert not interrupted()
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt inside the block
        assert interrupted()
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.slow  # three processes that import torch, terminated at roughly log-spaced moments
@pytest.mark.parametrize("after", [0.01, 0.6, 3.0])
def test_a_sigterm_while_sanbench_starts_ends_it_in_one_line_saying_nothing_was_saved(
    after: float,
) -> None:
    """A user's kill while sanbench imports: exit 143 with one line (until 2026-11-30 exit 143
    and nothing said), or the command's own end when the signal came after its start."""
    process = subprocess.Popen(
        [*PROGRAM, "encoders"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdout is not None and process.stdout.readline() == "up\n"
    time.sleep(after)
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=600)
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    if process.returncode == 0:  # the list came before the signal
        assert "disan" in stdout
    else:
        assert process.returncode == 143, (process.returncode, stderr)
        assert stderr.strip() in (TERMINATED_ENCODERS, "sanbench encoders: terminated"), stderr


@pytest.mark.slow  # four processes that import torch
def test_a_sigterm_once_the_output_is_out_never_ends_sanbench_by_the_signal() -> None:
    """Outside check 8y item 1: a SIGTERM 0-120 ms after ``sanbench encoders`` printed its
    table ended the process by the signal (status -15, no line), the interpreter's shutdown
    having given SIGTERM back its default action; once the status is known a signal changes
    nothing: status 0 with the table (or 143 with one line, had it come before)."""
    for after in (0.0, 0.01, 0.03, 0.08):
        process = subprocess.Popen(
            [*PROGRAM, "encoders"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert process.stdout is not None and process.stdout.readline() == "up\n"
        lines: list[str] = []
        begun = threading.Event()

        def read(stream: IO[str], lines: list[str] = lines, begun: threading.Event = begun) -> None:
            for line in stream:
                lines.append(line)
                begun.set()

        reader = threading.Thread(target=read, args=(process.stdout,))
        reader.start()
        assert begun.wait(timeout=600)  # the table has begun
        time.sleep(after)
        process.send_signal(signal.SIGTERM)
        assert process.stderr is not None
        stderr = process.stderr.read()
        process.wait(timeout=600)
        reader.join()
        said = (after, process.returncode, stderr)
        assert process.returncode in (0, 143), said
        if process.returncode == 0:
            assert "disan" in "".join(lines) and not stderr.strip(), said
        else:
            assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, said


@pytest.mark.slow  # a child process (the signal ends it)
def test_a_sigterm_while_the_program_starts_is_one_line_and_exit_143() -> None:
    """No torch imported: the start-up handler alone, signalled while it holds."""
    code = (
        "import signal, time\n"
        "from harness.interrupts import interrupt_held\n"
        "with interrupt_held():\n"
        "    signal.raise_signal(signal.SIGTERM)\n"
        "    time.sleep(5)\n"
        "print('went on')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (143, "", TERMINATED + "\n")


# sends itself a signal as the command's first block exits after its status is known
UNWINDING = """
import os, signal, sys
from harness import cli
from harness.interrupts import STATUS_KNOWN
signum, sys.argv = int(sys.argv[1]), ["sanbench", *sys.argv[2:]]
def tracer(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "__exit__" and STATUS_KNOWN.is_set():
        sys.settrace(None)
        os.kill(os.getpid(), signum)
    return None
sys.settrace(tracer)
cli.entry()
"""


@pytest.mark.slow  # four processes that import torch
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize(
    ("words", "status"), [(["encoders"], 0), (["fit", "--bogus", "1"], 2)], ids=["done", "refused"]
)
def test_a_signal_as_the_command_unwinds_changes_no_status(
    words: list[str], status: int, signum: int
) -> None:
    """Outside check 9y item 1: a signal as the command's blocks unwound, its status known,
    was raised by the command's own handlers: ``sanbench encoders`` printed its table and
    exited 143 ("terminated"), a finished fit too, and ``fit --bogus 1`` said "terminated /
    resume with: ..." instead of its refusal. The signal now changes nothing."""
    process = subprocess.run(
        [sys.executable, "-c", UNWINDING, str(int(signum)), *words],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    said = (process.returncode, process.stderr)
    assert process.returncode == status, said
    assert "terminated" not in process.stderr and "interrupted" not in process.stderr, said
    if status == 0:
        assert "disan" in process.stdout, said
    else:
        assert "--bogus" in process.stderr, said


# sends itself a Ctrl-C as the program imports its first module of sanbench's
IMPORTING = """
import os, signal, sys
class Finder:
    def find_spec(self, name, path=None, target=None):
        if name == "harness.interrupts":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Finder())
sys.argv = ["sanbench", "encoders"]
from harness.program import entry
entry()
"""


def test_a_ctrl_c_as_the_program_imports_its_first_module_is_held() -> None:
    """Outside check 10y item 2: a Ctrl-C 0.045-0.075 s into ``sanbench`` came while
    ``harness.program`` imported ``harness.interrupts``, before its entry blocked the signal:
    a KeyboardInterrupt traceback. The module blocks it before any import."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORTING], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert (done.returncode, done.stderr.strip(), done.stdout) == (130, INTERRUPTED, ""), done


def test_importing_the_program_blocks_no_signal() -> None:
    """multiprocessing's spawned processes (profile's prediction pool) import the console
    script, hence ``harness.program``, again: blocking SIGINT and SIGTERM at its import (979d6e8)
    blocked them in every pool worker, and the pool's terminate (SIGTERM) waited for ever."""
    code = "import signal, harness.program; print(sorted(signal.pthread_sigmask(0, [])))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "[]", done


# sends itself a signal as the program imports a module (argv: the signal, the module, the words)
SIGNALLED_IMPORTING = """
import os, sys
signum, module, sys.argv = int(sys.argv[1]), sys.argv[2], ["sanbench", *sys.argv[3:]]
class Finder:
    def find_spec(self, name, path=None, target=None):
        if name == module:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signum)
        return None
sys.meta_path.insert(0, Finder())
from harness.program import entry
entry()
"""


@pytest.mark.parametrize(
    "module",
    ["harness.interrupts", "harness.command_parser", "harness.profiling.command"],
    ids=["the program's first import", "the command line's", "the command's module"],
)
def test_a_sigterm_while_sanbench_starts_names_the_command(module: str) -> None:
    """Outside check 14 item 4: a SIGTERM from ~0.1 s to the end of the imports said
    ``sanbench: terminated while starting; nothing was saved`` where a Ctrl-C named the
    command; both name it at every moment."""
    done = subprocess.run(
        [sys.executable, "-c", SIGNALLED_IMPORTING, str(int(signal.SIGTERM)), module, "profile"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    said = "sanbench profile: terminated while starting; nothing was saved"
    assert (done.returncode, done.stderr.strip(), done.stdout) == (143, said, ""), done


@pytest.mark.parametrize(
    ("signum", "module", "words", "said"),
    [
        (
            signal.SIGTERM,
            "harness.data.command",
            ["data", "stats", "--task", "trec"],
            "sanbench data stats: terminated while starting; nothing was saved",
        ),
        (
            signal.SIGINT,
            "harness.suite.command",
            ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--out", "no-such-folder"],
            "sanbench suite: interrupted; nothing was saved",
        ),
    ],
    ids=["a SIGTERM as data stats loads", "a Ctrl-C as suite loads"],
)
def test_a_signal_while_a_command_loads_says_what_is_true(
    signum: int, module: str, words: list[str], said: str
) -> None:
    """Outside check at 9564b86: a SIGTERM in the first ~0.3 s of ``data stats`` (its module
    loading) named ``sanbench data`` (item 4); a Ctrl-C held while ``suite`` loaded said a bare
    ``interrupted`` where one a moment later said ``nothing was saved`` (item 2)."""
    done = subprocess.run(
        [sys.executable, "-c", SIGNALLED_IMPORTING, str(int(signum)), module, *words],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert (done.returncode, done.stderr.strip(), done.stdout) == (128 + signum, said, ""), done


# sends itself a signal once the first line of the command's message is out
AFTER_THE_FIRST_LINE = """
import os, sys
from harness import cli
signum, sys.argv = int(sys.argv[1]), ["sanbench", *sys.argv[2:]]
class Stderr:
    def __init__(self, stream):
        self.stream, self.sent = stream, False
    def write(self, text):
        written = self.stream.write(text)
        self.stream.flush()
        if text.startswith("sanbench ") and not self.sent:
            self.sent = True
            os.kill(os.getpid(), signum)
        return written
    def __getattr__(self, name):
        return getattr(self.stream, name)
sys.stderr = Stderr(sys.stderr)
cli.entry()
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_as_a_refusal_is_said_changes_nothing(signum: int) -> None:
    """Outside check 14 item 1: a signal as the first line of a refusal of the command's words
    came out (``report --bogus 1``, refused as its words were checked) cut the rest: a
    SIGTERM said ``terminated`` (143), a Ctrl-C gave a traceback; the other problem and the
    pointer to the help were lost. Once the status is known a signal changes nothing: the
    refusal is said whole."""
    done = subprocess.run(
        [sys.executable, "-c", AFTER_THE_FIRST_LINE, str(int(signum)), "report", "--bogus", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    said = [
        "sanbench report: unknown option --bogus (did you mean --out?)",
        "sanbench report: RUNS... is required: run folders",
        "(see sanbench report --help)",
    ]
    assert (done.returncode, done.stderr.splitlines()) == (2, said), done
