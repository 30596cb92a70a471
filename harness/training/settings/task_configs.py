"""Fit configurations: the per-task YAMLs (only what differs per task) and their keys
(``harness.training.settings.fit_run.FitRun`` is one fit built on them).

A fit config has LightningCLI's layout: ``seed_everything``, ``trainer:``, ``model:``,
``data:``, ``run:`` (harness options) and ``out``. Light on purpose (yaml and the standard
library only): the suite and tune check their grids without torch or Lightning.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from importlib import resources
from typing import Any, Literal, get_args

import yaml

from harness.errors import UsageError
from harness.quiet import LIGHTNING_SEED

# One YAML per task of ``datamodules.tasks`` (the one list of tasks), named after it. They stay
# apart from the task's declaration: datamodules knows data only (the layer below), and these
# are training settings, a LightningCLI config file with each value's paper section.
CONFIG_PACKAGE = "harness.training.configs"


# the model keys of the papers' optimizers, which --optimizer CLASS replaces
PAPERS_OPTIMIZER_KEYS = ("optimizer", "lr", "adadelta_rho", "eps")
# the papers' optimizers: Adadelta (Bi-BloSAN §4.1, DiSAN §5) or Adam (Bi-BloSAN §4.4)
PapersOptimizer = Literal["adadelta", "adam"]
PAPERS_OPTIMIZERS: tuple[str, ...] = get_args(PapersOptimizer)


class ConfigError(ValueError):
    """A fit configuration that cannot run; the message says what to change."""


class ConfigUsageError(ConfigError, UsageError):
    """A :class:`ConfigError` of the command's own words or ``--config`` file (an option or a
    value refused, a missing ``--out``), which ``harness.cli`` follows with the pointer to the
    command's ``--help``; a user's ``--data`` class raising is a plain ``ConfigError``."""


def task_option_problems(option: str, tasks: list[str]) -> list[str]:
    """What is wrong with the tasks an option names, one line each: an unknown name (with the
    known ones and the nearest) or a task file's problem."""
    from datamodules.task_file import is_task_file, misnamed_task_file
    from datamodules.tasks import canonical_name, shown_names
    from datamodules.tasks import task_problems as file_problems

    problems = []
    for task in tasks:
        if is_task_file(task):
            problems += file_problems(task)
        elif canonical_name(task) is None and (misnamed := misnamed_task_file(task)):
            problems.append(f"{option} {misnamed}")
        elif canonical_name(task) is None:
            meant = task_stand_in(task)
            nearest = f" (did you mean {meant}?)" if meant else ""
            problems.append(
                f"{option} {task}: expected one of {', '.join(shown_names())}, or a task file "
                f'(NAME.yaml, docs/data.md "Your own data"){nearest}'
            )
    return problems


def task_stand_in(task: str) -> str | None:
    """The built-in task that the unknown name ``task`` means (``SST-5``: sst1), else its
    nearest (``treec``: trec): the name its refusal proposes, whose config the other values are
    judged on, so that they are named in the same refusal as the name (as an encoder's
    ``encoder_stand_in``); None for a known name, a file, or no near name."""
    from datamodules.errors import nearest
    from datamodules.task_file import is_task_file, misnamed_task_file
    from datamodules.tasks import canonical_name, list_tasks, task_spelled

    if canonical_name(task) is not None or is_task_file(task) or misnamed_task_file(task):
        return None
    return task_spelled(task) or nearest(task, list_tasks())


def config_name(task: str) -> str:
    """The config a task trains with: its own, or for a task file the benchmark it is ``like``."""
    from datamodules.task_file import is_task_file
    from datamodules.tasks import canonical_name, get_task

    if not is_task_file(task):
        return canonical_name(task) or task

    table = get_task(task).table
    assert table is not None
    return table.like


def load_task_config(task: str) -> dict[str, Any]:
    """``harness/training/configs/<task>.yaml`` (a task file's: its ``like``'s): sections, and
    per-encoder values (``encoders``)."""
    path = resources.files(CONFIG_PACKAGE) / f"{config_name(task)}.yaml"
    if not path.is_file():
        from datamodules.tasks import list_tasks

        raise ConfigError(f"unknown task {task!r}; known: {', '.join(sorted(list_tasks()))}")
    return yaml.safe_load(path.read_text()) or {}


def dotted(nested: dict[str, Any]) -> dict[str, Any]:
    """``{"data": {"batch_size": 32}}`` -> ``{"data.batch_size": 32}`` (one level of sections)."""
    return {f"{section}.{k}": v for section, values in nested.items() for k, v in values.items()}


def task_defaults(task: str, encoder: str | None) -> dict[str, Any]:
    """The task's values, then its per-encoder ones (e.g. DiSAN's batch 16), as dotted keys."""
    config = load_task_config(task)
    per_encoder = (config.pop("encoders", None) or {}).get(encoder) or {}
    return dotted(config) | dotted(per_encoder)


def nested(values: dict[str, Any]) -> dict[str, Any]:
    """Dotted keys (``trainer.max_steps``) -> the nested mapping LightningCLI parses."""
    tree: dict[str, Any] = {}
    for key, value in values.items():
        *parents, leaf = key.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return tree


def task_and_encoder(config: dict[str, Any]) -> tuple[str | None, str | None]:
    """The task and encoder a nested fit config names (None where it names none)."""
    data, model = config.get("data") or {}, config.get("model") or {}
    return data.get("task"), model.get("encoder")


@contextlib.contextmanager
def seed_message_hidden() -> Iterator[None]:
    """Without the "Seed set to N" line LightningCLI logs as it parses a config (the seed is in
    the config and in ``fit_config.yaml``)."""
    seed_log = logging.getLogger(LIGHTNING_SEED)
    was_disabled, seed_log.disabled = seed_log.disabled, True
    try:
        yield
    finally:
        seed_log.disabled = was_disabled


def builtin_value(value: Any) -> Any:
    """``value`` as a built-in int or float: jsonargparse's checked types (``PositiveInt``, ...)
    subclass them, and checkpoints load with ``weights_only``, which accepts built-ins only."""
    if isinstance(value, bool) or value is None:
        return value
    for kind in (int, float):
        if isinstance(value, kind):
            return kind(value)
    return value
