"""argparse types shared by the ``sanbench`` commands, one per kind of value: bad values fail
while parsing (exit status 2, one message), before any heavy import or any work."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _number(value: str, kind: type[int] | type[float]) -> int | float:
    try:
        return kind(value)
    except ValueError:
        name = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{value!r} is not {name}") from None


def positive_int(value: str) -> int:
    """An integer of at least 1."""
    number = int(_number(value, int))
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {number}")
    return number


def non_negative_int(value: str) -> int:
    """An integer of at least 0."""
    number = int(_number(value, int))
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {number}")
    return number


def positive_float(value: str) -> float:
    """A number above 0."""
    number = float(_number(value, float))
    if not number > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {value}")
    return number


def batches(value: str) -> int | float:
    """Lightning's ``limit_*_batches``: an integer of at least 1 counts batches, a number with a
    point in (0, 1] is a fraction of the epoch (0 would train or validate nothing)."""
    if "." not in value:
        return positive_int(value)
    fraction = float(_number(value, float))
    if not 0 < fraction <= 1:
        raise argparse.ArgumentTypeError(f"a fraction must be in (0, 1], got {value}")
    return fraction


def names(value: str) -> list[str]:
    """A comma-separated list of names, at least one."""
    listed = [name.strip() for name in value.split(",") if name.strip()]
    if not listed:
        raise argparse.ArgumentTypeError("expected a comma-separated list such as trec,sst2")
    return listed


def parsed_by(parse: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse type from a parser that raises ``ValueError`` with a readable message
    (``Shard.parse``, ``parse_lengths``)."""

    def argument(value: str) -> T:
        try:
            return parse(value)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    argument.__name__ = getattr(parse, "__name__", "value")
    return argument
