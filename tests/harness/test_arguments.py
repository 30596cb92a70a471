"""The one argparse type of each kind (``harness.arguments``)."""

from __future__ import annotations

import argparse

import pytest

from harness.arguments import (
    batches,
    names,
    non_negative_int,
    parsed_by,
    positive_float,
    positive_int,
)
from harness.suite.grid import Shard


@pytest.mark.parametrize(
    ("parse", "good", "bad"),
    [
        (positive_int, {"1": 1, "12": 12}, ["0", "-3", "1.5", "x"]),
        (non_negative_int, {"0": 0, "2": 2}, ["-1", "x"]),
        (positive_float, {"0.5": 0.5, "3": 3.0}, ["0", "-1", "nan", "x"]),
        (batches, {"3": 3, "0.25": 0.25, "1.0": 1.0}, ["0", "0.0", "1.5", "-2", "x"]),
        (names, {"a,b": ["a", "b"], " a , ": ["a"]}, [",", ""]),
        (parsed_by(Shard.parse), {"2/3": Shard(2, 3)}, ["4/3", "x"]),
    ],
)
def test_each_type_takes_its_values_and_refuses_the_rest(parse, good, bad) -> None:
    for text, value in good.items():
        assert parse(text) == value
    for text in bad:
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)
