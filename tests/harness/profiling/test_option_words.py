"""``profile`` options refused in sanbench's words, naming the option given (issue 56.4):
``--repeats 0`` was accepted (the preset's count ran instead), ``--predict-lengths 16:1024:0``
was called a bad ``--lengths`` part, ``--threads`` beyond the machine's cores was taken."""

from __future__ import annotations

import os

import pytest

from harness.errors import InputError
from harness.profiling.options import ProfileOptions


@pytest.mark.parametrize("repeats", [0, 2, -1])
def test_fewer_than_three_repeats_are_refused(repeats: int) -> None:
    with pytest.raises(InputError, match=f"--repeats {repeats}: at least 3"):
        ProfileOptions(repeats=repeats)


def test_a_bad_predict_lengths_part_names_that_option() -> None:
    with pytest.raises(InputError, match=r"^bad --predict-lengths part '16:1024:0'"):
        ProfileOptions(predict_lengths="16:1024:0")


def test_threads_beyond_the_cores_are_refused() -> None:
    cores = len(os.sched_getaffinity(0))
    with pytest.raises(InputError, match=f"--threads {cores + 1}: .*{cores} core"):
        ProfileOptions(threads=cores + 1)
    ProfileOptions(threads=cores)
