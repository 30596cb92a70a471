"""A Ctrl-C at any moment of sanbench's start-up (issue 54.5, found from outside: at 2 s a
traceback from jsonargparse's import, at 6-7 s "internal error" from a half-imported numpy):
exit 130 with sanbench's one line, or the command's own end when the signal came after it.
The moments are counted from when the program's first line runs: before it, the interpreter
itself starts (its site module, the virtualenv's path files), which no program can guard (a
Ctrl-C 0.05 s after the launch stopped Python's own start-up with "Fatal Python error")."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the console script's code, saying when it starts (the interpreter is up by then)
PROGRAM = [
    sys.executable,
    "-c",
    "from harness.program import entry; print('up', flush=True); entry()",
]
INTERRUPTED = re.compile(r"^sanbench( \w+)?: interrupted$")
TERMINATED = "sanbench: terminated while starting; nothing was saved"


@pytest.mark.slow  # five processes that import torch, signalled at roughly log-spaced moments
@pytest.mark.parametrize("after", [0.01, 0.1, 0.6, 2.0, 5.0])
def test_a_ctrl_c_while_sanbench_starts_ends_it_in_one_line(after: float) -> None:
    process = subprocess.Popen(
        [*PROGRAM, "encoders"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert process.stdout is not None and process.stdout.readline() == "up\n"
    time.sleep(after)
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=600)
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    if process.returncode == 0:  # the list came before the signal
        assert "disan" in stdout
    else:
        assert process.returncode == 130, stderr
        assert INTERRUPTED.match(stderr.strip()), stderr  # one line


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
        assert stderr.strip() in (TERMINATED, "sanbench encoders: terminated"), stderr


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
