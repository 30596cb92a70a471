"""Study names (``sanbench tune --study NAME``) -> the function that builds their plan."""

from __future__ import annotations

from collections.abc import Callable

from harness.studies import block_length, block_length_memory, dropout, space
from harness.studies.plans import StudyPlan, TuneContext

STUDIES: dict[str, Callable[[TuneContext], StudyPlan]] = {
    "block-length": block_length.plan,
    "block-length-memory": block_length_memory.plan,
    "dropout": dropout.plan,
    "search": space.plan,
}
