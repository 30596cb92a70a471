"""Study names (``sanbench tune --study NAME``) -> the function that builds their plan."""

from __future__ import annotations

from collections.abc import Callable

from harness.studies import block_length, block_length_memory, dropout, space
from harness.studies.plans import (
    BLOCK_LENGTH,
    BLOCK_LENGTH_MEMORY,
    DROPOUT,
    SEARCH,
    StudyPlan,
    TuneContext,
)

PLANS: dict[str, Callable[[TuneContext], StudyPlan]] = {
    BLOCK_LENGTH: block_length.plan,
    BLOCK_LENGTH_MEMORY: block_length_memory.plan,
    DROPOUT: dropout.plan,
    SEARCH: space.plan,
}
