"""Seeded, stratified index splits: k-fold cross-validation and carving a dev set."""

from __future__ import annotations

from collections.abc import Sequence

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
