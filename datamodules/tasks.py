"""The benchmark tasks: kind, label set and which file splits serve as train/dev/test."""

from __future__ import annotations

import functools
from typing import Any

from datamodules.errors import did_you_mean
from datamodules.paths import expanded
from datamodules.readers import kim2014, nli, senteval, sick
from datamodules.task_spec import SPLITS, Kind, Release, TaskSpec

__all__ = [
    "Kind",
    "TaskSpec",
    "canonical_name",
    "get_task",
    "list_tasks",
    "shown_names",
    "task_name",
    "task_problems",
    "task_spelled",
]

NLI_LABELS = ("entailment", "neutral", "contradiction")
# Kim (2014) TREC.*.all label ids 0-5 map to these coarse classes (checked against the
# questions: 0 "How did ...", 2 abbreviations, 3 "Who was ...", 4 places, 5 numbers).
TREC_LABELS = ("DESC", "ENTY", "ABBR", "HUM", "LOC", "NUM")


Files = tuple[tuple[str, tuple[str, ...]], ...]  # (source split, its file names)


def _each(splits: tuple[str, ...], *patterns: str) -> Files:
    """Each split's files by ``patterns`` (``"stsa.fine.{}"`` -> ``stsa.fine.train``, ...)."""
    return tuple((split, tuple(pattern.format(split) for pattern in patterns)) for split in splits)


def _binary_cv(
    name: str, labels: tuple[str, str], kim_file: str, folder: str, class_files: tuple[str, str]
) -> TaskSpec:
    """A two-class task cross-validated over one split: one file in Kim (2014)'s release, one
    file per class in SentEval's."""
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
        releases=(
            Release(kim2014.NAME, (("all", (kim_file,)),)),
            Release(senteval.NAME, (("all", class_files),), folder, senteval.CLASS_FILES),
        ),
    )


def _sst(
    name: str,
    title: str,
    labels: tuple[str, ...],
    kim: str,
    folder: str,
    lines: str,
    aliases: tuple[str, ...] = (),
) -> TaskSpec:
    """SST-1 or SST-2: ``<kim>.<split>`` in Kim (2014)'s release, ``sentiment-<split>`` in
    SentEval's ``folder``, whose lines read as ``lines`` says."""
    return TaskSpec(
        name,
        "single",
        len(labels),
        labels,
        aliases=aliases,
        title=title,
        releases=(
            Release(kim2014.NAME, _each(SPLITS, kim + ".{}")),
            Release(senteval.NAME, _each(SPLITS, "sentiment-{}"), folder, lines),
        ),
    )


def _nli(name: str, splits: tuple[str, str, str], folder: str, **spec: Any) -> TaskSpec:
    """SNLI or MultiNLI: the jsonl and txt files as distributed, InferSent's s1/s2/labels."""
    prefix = f"{name}_1.0_{{}}"
    return TaskSpec(
        name,
        "pair",
        3,
        NLI_LABELS,
        splits,
        releases=(
            Release(nli.JSONL_NAME, _each(splits, prefix + ".jsonl")),
            Release(nli.TXT_NAME, _each(splits, prefix + ".txt")),
            Release(
                senteval.NAME,
                _each(splits, "s1.{}", "s2.{}", "labels.{}"),
                folder,
                senteval.S1_S2_LABELS,
            ),
        ),
        **spec,
    )


SICK_FILES = (
    ("train", ("SICK_train.txt",)),
    ("trial", ("SICK_trial.txt",)),
    ("test", ("SICK_test_annotated.txt",)),
)
_TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        _sst(
            "sst1",
            "SST-1",
            ("very negative", "negative", "neutral", "positive", "very positive"),
            "stsa.fine",
            "SST/fine",
            senteval.LABEL_SENTENCE,
            aliases=("sst5",),
        ),
        _sst(
            "sst2",
            "SST-2",
            ("negative", "positive"),
            "stsa.binary",
            "SST/binary",
            senteval.SENTENCE_TAB_LABEL,
        ),
        TaskSpec(
            "trec",
            "single",
            6,
            TREC_LABELS,
            ("train", "test"),
            dev_source=None,
            title="TREC",
            releases=(
                Release(
                    kim2014.NAME, (("train", ("TREC.train.all",)), ("test", ("TREC.test.all",)))
                ),
                Release(
                    senteval.NAME,
                    (("train", ("train_5500.label",)), ("test", ("TREC_10.label",))),
                    "TREC",
                    senteval.QUESTIONS,
                ),
            ),
        ),
        _binary_cv(
            "cr", ("negative", "positive"), "custrev.all", "CR", ("custrev.neg", "custrev.pos")
        ),
        _binary_cv("mpqa", ("negative", "positive"), "mpqa.all", "MPQA", ("mpqa.neg", "mpqa.pos")),
        _binary_cv(
            "subj",
            ("subjective", "objective"),
            "subj.all",
            "SUBJ",
            ("subj.subjective", "subj.objective"),
        ),
        _binary_cv(
            "mr",
            ("negative", "positive"),
            "rt-polarity.all",
            "MR",
            ("rt-polarity.neg", "rt-polarity.pos"),
        ),
        TaskSpec(
            "sick",
            "relatedness",
            5,
            ("1", "2", "3", "4", "5"),
            ("train", "trial", "test"),
            "trial",
            title="SICK",
            releases=(
                Release(sick.NAME, SICK_FILES),
                Release(senteval.NAME, SICK_FILES, "SICK", senteval.SICK_PAIRS),
            ),
        ),
        _nli("snli", SPLITS, "SNLI", title="SNLI"),
        _nli(
            "multinli",
            ("train", "dev_matched", "dev_mismatched"),
            "MultiNLI",
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


def canonical_name(name: str) -> str | None:
    """The built-in task ``name`` or its alias names as written (``sst5``: ``sst1``), else None."""
    return name if name in _TASKS else _ALIASES.get(name)


def recorded_task(task: str) -> str:
    """``task`` as configs record it: a task file by its absolute path, so that a run's
    ``fit_config.yaml`` (and every job of a suite) finds it from any folder; a benchmark by its
    name (an alias, ``sst5``, by the name it stands for, ``sst1``; anything else as it is)."""
    from datamodules.task_file import is_task_file

    if is_task_file(task):
        return str(expanded(task).absolute())
    return canonical_name(task) or task


def _spelling(word: str) -> str:
    return "".join(c for c in word.lower() if c.isalnum())


def task_spelled(word: str) -> str | None:
    """The built-in task whose name, alias or printed title ``word`` spells in another case or
    with other separators (``SST-5``, ``sst_5``: ``sst1``), else None."""
    spellings = {
        _spelling(spelled): spec.name
        for spec in _TASKS.values()
        for spelled in (spec.name, *spec.aliases, spec.title)
        if spelled
    }
    return spellings.get(_spelling(word))


def shown_names() -> list[str]:
    """The task names as a message lists them, each with its aliases (``sst1 (alias sst5)``)."""
    return [
        f"{spec.name} (alias {', '.join(spec.aliases)})" if spec.aliases else spec.name
        for spec in sorted(_TASKS.values(), key=lambda spec: spec.name)
    ]


@functools.cache
def _task_file(path: str, modified_ns: int) -> TaskSpec:
    from datamodules.task_file import load_task_file

    return load_task_file(path, list_tasks())


def get_task(name: str) -> TaskSpec:
    """The :class:`TaskSpec` for ``name``, one of its aliases, or a task file (``reviews.yaml``;
    :class:`~datamodules.task_file.TaskFileError` lists its problems)."""
    from datamodules.task_file import TaskFileError, is_task_file, missing_task_file

    if is_task_file(name):
        path = expanded(name).resolve()
        if not path.is_file():
            raise TaskFileError(missing_task_file(name))
        return _task_file(str(path), path.stat().st_mtime_ns)
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in _TASKS:
        known = ", ".join([*_TASKS, *_ALIASES])
        nearest = did_you_mean(name.lower(), [*_TASKS, *_ALIASES])
        raise KeyError(f"unknown task {name!r}; known tasks: {known}{nearest}")
    return _TASKS[key]


def task_problems(name: str) -> list[str]:
    """What is wrong with ``--task name`` (unknown, or its task file's problems), one line each."""
    from datamodules.task_file import TaskFileError, misnamed_task_file

    try:
        get_task(name)
    except KeyError as error:
        return [misnamed_task_file(name) or str(error.args[0])]
    except TaskFileError as error:
        return str(error).splitlines()
    return []


def task_name(name: str) -> str:
    """The name tables print for ``--task name``: a benchmark's own, or a task file's ``name``."""
    return get_task(name).name
