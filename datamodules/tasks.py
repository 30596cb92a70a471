"""The benchmark tasks: kind, label set and which file splits serve as train/dev/test."""

from __future__ import annotations

import functools
from pathlib import Path

from datamodules.errors import did_you_mean
from datamodules.task_spec import Kind, TaskSpec

__all__ = ["Kind", "TaskSpec", "get_task", "list_tasks", "task_name", "task_problems"]

NLI_LABELS = ("entailment", "neutral", "contradiction")
# Kim (2014) TREC.*.all label ids 0-5 map to these coarse classes (checked against the
# questions: 0 "How did ...", 2 abbreviations, 3 "Who was ...", 4 places, 5 numbers).
TREC_LABELS = ("DESC", "ENTY", "ABBR", "HUM", "LOC", "NUM")


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


@functools.cache
def _task_file(path: str, modified_ns: int) -> TaskSpec:
    from datamodules.task_file import load_task_file

    return load_task_file(path, list_tasks())


def get_task(name: str) -> TaskSpec:
    """The :class:`TaskSpec` for ``name``, one of its aliases, or a task file (``reviews.yaml``;
    :class:`~datamodules.task_file.TaskFileError` lists its problems)."""
    from datamodules.task_file import TaskFileError, is_task_file

    if is_task_file(name):
        path = Path(name).expanduser().resolve()
        if not path.is_file():
            raise TaskFileError(f"{name}: no such task file")
        return _task_file(str(path), path.stat().st_mtime_ns)
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in _TASKS:
        known = ", ".join([*_TASKS, *_ALIASES])
        nearest = did_you_mean(name.lower(), [*_TASKS, *_ALIASES])
        raise KeyError(f"unknown task {name!r}; known tasks: {known}{nearest}")
    return _TASKS[key]


def task_problems(name: str) -> list[str]:
    """What is wrong with ``--task name`` (unknown, or its task file's problems), one line each."""
    from datamodules.task_file import TaskFileError

    try:
        get_task(name)
    except KeyError as error:
        return [str(error.args[0])]
    except TaskFileError as error:
        return str(error).splitlines()
    return []


def task_name(name: str) -> str:
    """The name tables print for ``--task name``: a benchmark's own, or a task file's ``name``."""
    return get_task(name).name
