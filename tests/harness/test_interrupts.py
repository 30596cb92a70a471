"""``harness.interrupts``: a Ctrl-C deferred to the end of a block that must not be split."""

from __future__ import annotations

import importlib
import os
import signal
import time
from pathlib import Path

import pytest

from harness.interrupts import interrupt_deferred


def test_a_ctrl_c_inside_the_block_is_raised_as_it_leaves() -> None:
    """A sweep's row was written to profile.csv and the Ctrl-C landed before its console line
    (seen in CI: a file of 1 row beside 0 printed)."""
    done = []
    with pytest.raises(KeyboardInterrupt), interrupt_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        done.append("written")
        done.append("printed")
    assert done == ["written", "printed"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_handler_in_place_is_the_one_that_acts_and_an_ignored_ctrl_c_stays_ignored() -> None:
    noted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    try:
        with interrupt_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            assert noted == []
        assert noted == [signal.SIGINT]
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with interrupt_deferred():
            os.kill(os.getpid(), signal.SIGINT)
        assert noted == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_sigterm_in_the_block_raises_the_error_given_and_the_handler_is_put_back() -> None:
    from harness.interrupts import terminate_raises

    class TerminatedError(Exception):
        pass

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(TerminatedError), terminate_raises(TerminatedError) as terminated:
        assert not terminated()
        os.kill(os.getpid(), signal.SIGTERM)
    assert terminated()
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_jobs_sigterm_handler_acts_on_the_first_sigterm_only() -> None:
    """Issue 54: a job process had no SIGTERM handler outside a run's training, nor one for a
    second SIGTERM once training's had taken the first (``harness.launch.processes``)."""
    from harness.interrupts import TerminatedOnce

    class TerminatedError(Exception):
        pass

    first, taken = TerminatedOnce(TerminatedError), TerminatedOnce(TerminatedError)
    previous = signal.signal(signal.SIGTERM, first)
    try:
        with pytest.raises(TerminatedError):
            os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)  # absorbed
        assert first.raised
        signal.signal(signal.SIGTERM, taken)
        taken.stop_under_way()  # training's handler took the first and handed SIGTERM back
        os.kill(os.getpid(), signal.SIGTERM)
        assert not taken.raised
    finally:
        signal.signal(signal.SIGTERM, previous)


# a library's start-up that swallows what its import raises (torch's C start-up imports numpy
# and goes on without it): the signal lands inside the import
SWALLOWING_MODULE = """
import os, signal
try:
    os.kill(os.getpid(), signal.{name})
    for _ in range(100_000):  # the handler runs between these
        pass
    swallowed = False
except BaseException:
    swallowed = True
"""


class SwallowedError(Exception):
    pass


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("block_ends", [False, True])
def test_a_signal_inside_an_import_is_raised_once_the_import_ends_not_lost(
    name: str, block_ends: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 7y item 1: a Ctrl-C while ``sanbench encoders`` imported torch was
    swallowed by torch's start-up, and the command ran on to status 0. Now it is raised
    within ``RETRY_SECONDS`` of the import's end, or as the block ends if that comes first."""
    from harness.interrupts import interrupt_noted, terminate_raises

    signum = getattr(signal, name)
    raising, error = (
        (interrupt_noted(), KeyboardInterrupt)
        if signum == signal.SIGINT
        else (terminate_raises(SwallowedError), SwallowedError)
    )
    module = f"swallows_{name.lower()}_{block_ends}"
    (tmp_path / f"{module}.py").write_text(SWALLOWING_MODULE.format(name=name))
    monkeypatch.syspath_prepend(tmp_path)
    before = signal.getsignal(signum)
    with pytest.raises(error), raising as came:
        imported = importlib.import_module(module)
        assert not imported.swallowed  # the import ran to its end
        assert came()
        if not block_ends:
            time.sleep(10)  # the retry raises here
            pytest.fail("not raised while the block went on")
    assert signal.getsignal(signum) is before


def test_a_ctrl_c_sanbench_took_is_not_sent_again_to_the_commands_own_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 54 (fixer f17e, by hand): one Ctrl-C to ``profile --launcher process`` printed
    "Ctrl-C again to kill them": the signal, sent again to see whether a library swallowed its
    error, reached the jobs' stop handler, put in place by the code that caught the error, as
    a second Ctrl-C. Sanbench's code caught it here (a module of its own packages)."""
    import harness.interrupts as interrupts

    monkeypatch.setattr(interrupts, "OWN_PACKAGES", (*interrupts.OWN_PACKAGES, "tests"))
    stops: list[int] = []
    with interrupts.interrupt_noted() as came:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            own = signal.signal(signal.SIGINT, lambda signum, frame: stops.append(signum))
            time.sleep(10 * interrupts.RETRY_SECONDS)  # retries were due meanwhile
            signal.signal(signal.SIGINT, own)
    assert came() and stops == []
