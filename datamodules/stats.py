"""Per-split statistics of a task's files: counts, labels, drops, lengths, vector coverage."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from datamodules.errors import MissingSplitError
from datamodules.readers.base import SplitData
from datamodules.readers.layouts import load_split, resolve_layout, split_files
from datamodules.task_spec import TaskSpec
from datamodules.vectors import Vectors

PERCENTILES = (50, 90, 95, 99)


@dataclass
class SplitStats:
    """What ``sanbench data stats`` prints for one file split (``missing`` when absent)."""

    split: str
    files: list[str]
    missing: bool = False
    examples: int = 0
    labels: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    empty_sentences: int = 0
    length: dict[str, float] = field(default_factory=dict)
    coverage: float | None = None


def label_counts(task: TaskSpec, data: SplitData) -> dict[str, int]:
    """Examples per class name; SICK scores per unit bin ``1-2`` ... ``4-5`` (5 in ``4-5``)."""
    if task.kind == "relatedness":
        bins = (min(int(e.label), 4) for e in data.examples)
        counts = Counter(f"{low}-{low + 1}" for low in bins)
    else:
        counts = Counter(task.labels[int(e.label)] for e in data.examples)
    return dict(sorted(counts.items()))


def length_summary(lengths: list[int]) -> dict[str, float]:
    """Mean, std (population), percentiles and max of sentence lengths in tokens. A
    percentile is a length (nearest rank, numpy's ``inverted_cdf``): pQ is the least length
    that at least Q% of the sentences do not exceed, never an interpolation such as 15.01."""
    values = np.asarray(lengths, dtype=np.float64)
    summary = {"mean": float(values.mean()), "std": float(values.std())}
    summary |= {
        f"p{q}": float(np.percentile(values, q, method="inverted_cdf")) for q in PERCENTILES
    }
    return summary | {"max": float(values.max())}


def split_stats(
    task: TaskSpec, data: SplitData, vectors: Vectors | None, lowercase: bool
) -> SplitStats:
    """Statistics of one loaded split; coverage = share of tokens with a pretrained vector."""
    sentences = [s for e in data.examples for s in ((e.a,) if e.b is None else (e.a, e.b))]
    coverage = None
    if vectors is not None:
        tokens = [t.lower() if lowercase else t for s in sentences for t in s]
        coverage = sum(vectors.row(t) is not None for t in tokens) / max(len(tokens), 1)
    return SplitStats(
        split=data.name,
        files=[str(p) for p in data.files],
        examples=len(data.examples),
        labels=label_counts(task, data),
        dropped=dict(data.dropped),
        empty_sentences=sum(not s for s in sentences),
        length=length_summary([len(s) for s in sentences]),
        coverage=coverage,
    )


def dataset_stats(
    task: TaskSpec,
    data_dir: Path | None,
    layout: str | None = None,
    vectors: Vectors | None = None,
    lowercase: bool = False,
    encoding: str | None = None,
) -> tuple[str, Path, list[SplitStats]]:
    """Layout name, folder and the statistics of every file split of ``task`` there."""
    found, root = resolve_layout(task, data_dir, layout)
    result = []
    for split in task.source_splits:
        try:
            split_files(task, found, root, split)
        except MissingSplitError as error:
            result.append(SplitStats(split, [str(p) for p in error.missing], missing=True))
            continue
        data = load_split(task, found, root, split, encoding)
        result.append(split_stats(task, data, vectors, lowercase))
    return found.name, root, result
