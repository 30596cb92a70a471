"""The share of its dev or test split a fit's final pass scored: ``--trainer.limit_val_batches``
or ``limit_test_batches`` below the split's batches score its first batches only (sanbench's
loaders: its shortest sentences, or pairs by total length), and metrics.json says so beside the
scores (issue 54)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from torch.utils.data import DataLoader

SPLIT_OPTIONS = {"dev": "limit_val_batches", "test": "limit_test_batches"}
# what a pair task's partial split is: its loaders sort pairs by both sentences' tokens
PAIRS = "pairs (by total length)"


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
        batches_of = _batches(loader)
        if batches_of is None:
            return None
        sizes = [len(batch) for batch in batches_of]
        scored, total = scored + sum(sizes[: int(count)]), total + sum(sizes)
    return scored / total if total else 1.0


def scored_positions(batches: Sequence[int | float], loaders: Any) -> list[int] | None:
    """The positions in its dataset of the sentences the first ``batches`` batches of a single
    loader (``loaders``) hold, in order: what a test pass limited so scored, for the prediction
    pass to predict the same sentences (issue 54). None when it scored all of them, or for
    several loaders or one of no length."""
    loaders = loaders if isinstance(loaders, list | tuple) else [loaders]
    if len(loaders) != 1 or len(batches) != 1 or math.isinf(batches[0]):
        return None
    batches_of = _batches(loaders[0])
    if batches_of is None or int(batches[0]) >= len(batches_of):
        return None
    return sorted(position for batch in batches_of[: int(batches[0])] for position in batch)


def _batches(loader: DataLoader) -> list[list[int]] | None:
    """The dataset positions of each of ``loader``'s batches (one each without a batch
    sampler), None for a loader of no length."""
    if loader.batch_sampler is None:
        try:
            len(loader)
        except TypeError:
            return None
        return [[int(position)] for position in loader.sampler]
    return [[int(position) for position in batch] for batch in loader.batch_sampler]


def partial_split_message(
    shares: dict[str, float | None], limits: dict[str, Any], pairs: bool = False
) -> str | None:
    """What a fit says when a share of ``shares`` (``dev``/``test``) is below 1, naming the
    option of ``limits`` (``limit_val_batches``: value) that set it; None when none is.
    ``pairs``: a task of sentence pairs (SICK, SNLI), which the loaders sort by total length."""
    partial = {split: share for split, share in shares.items() if share is None or share < 1}
    if not partial:
        return None
    splits = " and ".join(partial)
    parts = [
        f"{'the shortest ' if share is not None else ''}{_percent(share)} of the {split}"
        for split, share in partial.items()
    ]
    options = ", ".join(
        f"--trainer.{SPLIT_OPTIONS[split]} {limits[SPLIT_OPTIONS[split]]}" for split in partial
    )
    return (
        f"the {splits} scores are of {' and '.join(parts)} {PAIRS if pairs else 'sentences'} "
        f"({options}): not "
        "whole-split scores "
        f"(recorded as {', '.join(f'{split}_scored_share' for split in partial)})"
    )


def _percent(share: float | None) -> str:
    """``49.4%``, ``50%``, ``0.4%``; ``an unknown share`` for None."""
    return "an unknown share" if share is None else f"{100 * share:.3g}%"
