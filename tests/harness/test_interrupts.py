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
