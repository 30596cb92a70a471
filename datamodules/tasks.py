"""The benchmark tasks: kind, label set and which file splits serve as train/dev/test."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["single", "pair", "relatedness"]

NLI_LABELS = ("entailment", "neutral", "contradiction")
# Kim (2014) TREC.*.all label ids 0-5 map to these coarse classes (checked against the
# questions: 0 "How did ...", 2 abbreviations, 3 "Who was ...", 4 places, 5 numbers).
TREC_LABELS = ("DESC", "ENTY", "ABBR", "HUM", "LOC", "NUM")


@dataclass(frozen=True)
class TaskSpec:
    """One benchmark task.

    ``dev_source`` / ``test_source`` name the file split used for validation / test;
    ``None`` for dev means "carved from train (seeded, stratified)", ``None`` for test
    means "stratified ``cv_folds``-fold cross-validation over the single split ``all``".
    ``title`` is the name the papers' tables print (``SST-1``).
    """

    name: str
    kind: Kind
    num_classes: int
    labels: tuple[str, ...] = ()
    source_splits: tuple[str, ...] = ("train", "dev", "test")
    dev_source: str | None = "dev"
    test_source: str | None = "test"
    cv_folds: int = 0
    aliases: tuple[str, ...] = field(default=())
    title: str = ""


def _binary_cv(name: str, labels: tuple[str, str]) -> TaskSpec:
    return TaskSpec(
        name,
        "single",
        2,
        labels,
        ("all",),
        dev_source=None,
        test_source=None,
        cv_folds=10,
        title=name.upper(),
    )


_TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec(
            "sst1",
            "single",
            5,
            ("very negative", "negative", "neutral", "positive", "very positive"),
            aliases=("sst5",),
            title="SST-1",
        ),
        TaskSpec("sst2", "single", 2, ("negative", "positive"), title="SST-2"),
        TaskSpec(
            "trec", "single", 6, TREC_LABELS, ("train", "test"), dev_source=None, title="TREC"
        ),
        _binary_cv("cr", ("negative", "positive")),
        _binary_cv("mpqa", ("negative", "positive")),
        _binary_cv("subj", ("subjective", "objective")),
        _binary_cv("mr", ("negative", "positive")),
        TaskSpec(
            "sick",
            "relatedness",
            5,
            ("1", "2", "3", "4", "5"),
            ("train", "trial", "test"),
            "trial",
            title="SICK",
        ),
        TaskSpec("snli", "pair", 3, NLI_LABELS, title="SNLI"),
        TaskSpec(
            "multinli",
            "pair",
            3,
            NLI_LABELS,
            ("train", "dev_matched", "dev_mismatched"),
            dev_source="dev_matched",
            test_source="dev_mismatched",
            aliases=("mnli",),
            title="MultiNLI",
        ),
    )
}
_ALIASES = {alias: spec.name for spec in _TASKS.values() for alias in spec.aliases}


def list_tasks() -> list[str]:
    """Canonical task names (aliases such as ``sst5`` are accepted by :func:`get_task`)."""
    return list(_TASKS)


def get_task(name: str) -> TaskSpec:
    """The :class:`TaskSpec` for ``name`` or one of its aliases."""
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in _TASKS:
        known = ", ".join([*_TASKS, *_ALIASES])
        raise KeyError(f"unknown task {name!r}; known tasks: {known}")
    return _TASKS[key]
