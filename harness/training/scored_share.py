"""The share of its dev or test split a fit's final pass scored: ``--trainer.limit_val_batches``
or ``limit_test_batches`` below the split's batches score its first batches only (sanbench's
loaders: its shortest sentences), and metrics.json says so beside the scores (issue 54)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from torch.utils.data import DataLoader

SPLIT_OPTIONS = {"dev": "limit_val_batches", "test": "limit_test_batches"}


class PartialSplitWarning(UserWarning):
    """A fit whose dev or test scores are of part of the split. Said once per distinct message
    of a command (harness.quiet): a suite's runs of one task say the same."""

    ONCE_PER_MESSAGE = True


def scored_share(batches: Sequence[int | float], loaders: Any) -> float | None:
    """The share of ``loaders``' sentences in the first ``batches`` batches of each (Lightning's
    ``num_val_batches``/``num_test_batches`` after the pass, ``inf`` for a loader of unknown
    length: all of it); None when a limited loader's sentences cannot be counted."""
    loaders = loaders if isinstance(loaders, list | tuple) else [loaders]
    scored = total = 0
    for count, loader in zip(batches, loaders, strict=True):
        if math.isinf(count):
            continue
        sizes = _batch_sizes(loader)
        if sizes is None:
            return None
        scored, total = scored + sum(sizes[: int(count)]), total + sum(sizes)
    return scored / total if total else 1.0


def _batch_sizes(loader: DataLoader) -> list[int] | None:
    """The sentences of each of ``loader``'s batches (one each without a batch sampler), None
    for a loader of no length."""
    if loader.batch_sampler is None:
        try:
            return [1] * len(loader)
        except TypeError:
            return None
    return [len(batch) for batch in loader.batch_sampler]


def partial_split_message(shares: dict[str, float | None], limits: dict[str, Any]) -> str | None:
    """What a fit says when a share of ``shares`` (``dev``/``test``) is below 1, naming the
    option of ``limits`` (``limit_val_batches``: value) that set it; None when none is."""
    partial = {split: share for split, share in shares.items() if share is None or share < 1}
    if not partial:
        return None
    splits = " and ".join(partial)
    parts = [f"{_percent(share)} of the {split}" for split, share in partial.items()]
    options = ", ".join(
        f"--trainer.{SPLIT_OPTIONS[split]} {limits[SPLIT_OPTIONS[split]]}" for split in partial
    )
    return (
        f"the {splits} scores are of {' and '.join(parts)} sentences ({options}): not "
        "whole-split scores "
        f"(recorded as {', '.join(f'{split}_scored_share' for split in partial)})"
    )


def _percent(share: float | None) -> str:
    """``49.4%``, ``50%``, ``0.4%``; ``an unknown share`` for None."""
    return "an unknown share" if share is None else f"{100 * share:.3g}%"
