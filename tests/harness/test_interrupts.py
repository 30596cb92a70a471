"""``harness.interrupts``: a Ctrl-C deferred to the end of a block that must not be split."""

from __future__ import annotations

import os
import signal

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
