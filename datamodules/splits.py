"""Seeded, stratified index splits: k-fold cross-validation and carving a dev set."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def _by_class(labels: Sequence[int], rng: np.random.Generator) -> list[np.ndarray]:
    labels = np.asarray(labels)
    return [rng.permutation(np.flatnonzero(labels == c)) for c in np.unique(labels)]


def stratified_folds(labels: Sequence[int], folds: int, seed: int) -> np.ndarray:
    """Fold number (0..folds-1) of every example; class proportions equal across folds.

    Each class is shuffled with ``seed`` and dealt round-robin, continuing the deal from
    class to class so fold sizes differ by at most one.
    """
    rng = np.random.default_rng(seed)
    assignment = np.empty(len(labels), dtype=np.int64)
    position = 0
    for members in _by_class(labels, rng):
        assignment[members] = (position + np.arange(len(members))) % folds
        position += len(members)
    return assignment


def carve(labels: Sequence[int], fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Split positions ``0..len(labels)-1`` into (kept, carved), ``fraction`` of each class carved.

    Both index arrays are sorted, so the kept examples keep their file order.
    """
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"dev fraction must be in (0, 1), got {fraction}")
    rng = np.random.default_rng(seed)
    carved = [m[: round(len(m) * fraction)] for m in _by_class(labels, rng)]
    carved_idx = np.sort(np.concatenate(carved)) if carved else np.array([], dtype=np.int64)
    kept = np.setdiff1d(np.arange(len(labels)), carved_idx)
    return kept, carved_idx


def fold_problems(
    labels: Sequence[int | float],
    assignment: np.ndarray,
    folds: int,
    names: Sequence[str] | None,
) -> list[str]:
    """What makes folds unusable, one line per fold: one without any example to test, or with
    class ``names`` (None: scores, no classes) a training part (every other fold) without every
    class of the file, whose model would be scored on examples of a class it never saw (of one
    class, on its test fold's share of that class). With the stratified deal of
    :func:`stratified_folds`, only a class of one example can miss a training part."""
    labels = np.asarray(labels)
    every = set(labels.tolist())
    problems = []
    for fold in range(folds):
        held = assignment == fold
        if not held.any():
            problems.append(f"fold {fold} holds no example ({len(labels)} examples, {folds} folds)")
            continue
        if names is None:
            continue
        trained = set(labels[~held].tolist())
        absent = every - trained
        missing = _quoted(names, absent)
        if len(trained) < 2:
            problems.append(
                f"fold {fold} trains on class {_quoted(names, trained)} only: every example of "
                f"{missing} is in fold {fold}"
            )
        elif trained != every:
            classes, them = ("classes", "them") if len(absent) > 1 else ("class", "it")
            problems.append(
                f"fold {fold} trains without {classes} {missing}: every example of {them} is "
                f"in fold {fold}"
            )
    return problems


def _quoted(names: Sequence[str], ids: Iterable[int]) -> str:
    return ", ".join(repr(names[i]) for i in sorted(ids))
