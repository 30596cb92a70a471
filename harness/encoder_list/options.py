"""``ListOptions``: the width ``sanbench encoders`` builds the encoders at."""

from __future__ import annotations

from dataclasses import dataclass

from harness.command_parser import integer_problems
from harness.errors import InputError


@dataclass(frozen=True)
class ListOptions:
    """The width the encoders are built at to count their parameters."""

    input_dim: int = 300
    """word vector size"""

    def __post_init__(self) -> None:
        problems = integer_problems(self, {"input_dim": 1})
        if problems:
            raise InputError("\n".join(problems))
