"""``search``: any fit options over a search space read from a YAML file (``--space FILE``).

Each key is a fit config key as on the command line (``model.dropout``, ``data.batch_size``,
``model.encoder_options.block_len``), each value its range::

    model.dropout: {low: 0.1, high: 0.5}            # float (both bounds floats)
    model.lr: {low: 1.0e-4, high: 1.0e-2, log: true}
    model.head_hidden: {low: 100, high: 600, step: 100}   # int (both bounds ints)
    model.optimizer: [adam, adadelta]               # one of these

One objective (dev accuracy, Pearson's r on SICK), TPE sampling, median pruning after each
validation unless ``--no-prune``, as the dropout study.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from harness.command_parser import absolute, config_text
from harness.errors import FilesProblem, InputError
from harness.studies.plans import SEARCH, StudyPlan, TuneContext

SECTIONS = ("trainer.", "model.", "data.")
RANGE_KEYS = {"low", "high", "log", "step"}


def _problems(key: str, spec: Any) -> list[str]:
    if not isinstance(key, str) or not key.startswith(SECTIONS):
        return [f"{key}: expected a fit key starting with {', '.join(SECTIONS)}"]
    if isinstance(spec, list):
        return [] if spec else [f"{key} []: expected one choice or more"]
    if not isinstance(spec, dict):
        return [f"{key} {spec!r}: expected {{low: .., high: ..}} or a list of choices"]
    unknown = set(spec) - RANGE_KEYS
    if unknown:
        return [f"{key}: unknown range keys {', '.join(sorted(map(str, unknown)))}"]
    low, high = spec.get("low"), spec.get("high")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (low, high))
    if not numbers:
        return [f"{key} low {low!r} high {high!r}: expected numbers"]
    if not low < high:
        return [f"{key} low {low} high {high}: expected low below high"]
    if spec.get("log") and low <= 0:
        return [f"{key} low {low}: expected a number above 0 (log: true)"]
    return []


def read_space(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The search space in ``path``, each bad entry left out, and one line per problem (a
    file not there is a :class:`FilesProblem`, naming the path looked at): said beside every
    other problem of the command line."""
    try:
        space = yaml.safe_load(config_text(path))  # a pipe read once: ends reads it again
    except FileNotFoundError:
        return {}, [FilesProblem(f"--space {path}: no such file: {absolute(path)}")]
    except OSError as error:
        return {}, [FilesProblem(f"--space {path}: {error.strerror}: {absolute(path)}")]
    except yaml.YAMLError as error:
        return {}, [f"--space {path}: not YAML ({' '.join(str(error).split())})"]
    if not isinstance(space, dict) or not space:
        return {}, [f"--space {path}: expected a mapping of fit keys to ranges"]
    problems = {key: _problems(key, spec) for key, spec in space.items()}
    kept = {key: spec for key, spec in space.items() if not problems[key]}
    return kept, [f"--space {path}: {line}" for lines in problems.values() for line in lines]


def ends(path: Path, space: dict[str, Any]) -> list[dict[str, tuple[Any, str, str]]]:
    """The values of ``space`` (read from ``path``) that fit's checks judge before any trial:
    both ends of every range (as the trial suggests them: floats unless both are integers)
    and every choice, zipped into as few configs as the longest list of them needs, each key
    -> its value, the name of where the file gives it (``--space s.yaml: model.dropout high``)
    and its text as written (``3``, ``010``)."""
    written = yaml.load(config_text(path), Loader=yaml.BaseLoader)  # the texts as written
    each = {
        key: _values(f"--space {path}: {key}", spec, written[key]) for key, spec in space.items()
    }
    count = max(len(values) for values in each.values())
    return [
        {key: values[min(n, len(values) - 1)] for key, values in each.items()} for n in range(count)
    ]


def _values(named: str, spec: Any, written: Any) -> list[tuple[Any, str, str]]:
    """``spec``'s values to check, each with its name and its text (:func:`ends`)."""
    if isinstance(spec, list):
        return [(value, named, _text(text)) for value, text in zip(spec, written, strict=True)]
    integers = isinstance(spec["low"], int) and isinstance(spec["high"], int)
    return [
        (spec[end] if integers else float(spec[end]), f"{named} {end}", written[end])
        for end in ("low", "high")
    ]


def _text(written: Any) -> str:
    """A choice as the file writes it: a scalar's text, a list or mapping in flow style."""
    if isinstance(written, list):
        return f"[{', '.join(map(_text, written))}]"
    if isinstance(written, dict):
        return "{" + ", ".join(f"{key}: {_text(value)}" for key, value in written.items()) + "}"
    return str(written)


def searched_flag_problems(
    source: str, keys: Iterable[str], typed: dict[str, tuple[str, str]]
) -> list[str]:
    """One line per flag that sets a key the study searches (``source``: ``--space FILE`` or
    ``--study dropout``; ``typed``: the fit keys the command's options set, as typed): each
    trial takes its own value, never the flag's. A config file's value is not refused: it is
    the base each trial's value replaces."""
    searched = set(keys)
    return [
        f"{option} {text}: {source} searches {key} (each trial takes its own value); give one"
        for key, (option, text) in typed.items()
        if key in searched and " " not in option  # a file's key is named "--config FILE: KEY"
    ]


def suggest(trial: Any, space: dict[str, Any]) -> dict[str, Any]:
    """The trial's value of every key of ``space``."""
    chosen = {}
    for key, spec in space.items():
        if isinstance(spec, list):
            chosen[key] = trial.suggest_categorical(key, spec)
        elif isinstance(spec["low"], int) and isinstance(spec["high"], int):
            step = spec.get("step", 1)
            chosen[key] = trial.suggest_int(
                key, spec["low"], spec["high"], step=step, log=bool(spec.get("log"))
            )
        else:
            chosen[key] = trial.suggest_float(
                key, spec["low"], spec["high"], step=spec.get("step"), log=bool(spec.get("log"))
            )
    return chosen


def plan(ctx: TuneContext) -> StudyPlan:
    import optuna

    from harness.studies.fitting import dev_metric, fit_trial, require_training, trial_trainer
    from harness.studies.pruning import pruning

    task, _, _ = require_training(ctx)
    if not ctx.space:
        raise InputError("study 'search' needs --space FILE (the search space)")
    dev, monitor = dev_metric(task)
    prune = pruning(ctx, monitor, trial_trainer(ctx))

    def objective(trial: optuna.Trial) -> float:
        return float(fit_trial(ctx, trial, suggest(trial, ctx.space), prune.callbacks(trial))[dev])

    return StudyPlan(
        name=SEARCH,
        metric_names=[dev],
        directions=["maximize"],
        objective=objective,
        default_trials=20,
        sampler=optuna.samplers.TPESampler(),
        pruner=prune.pruner,
        fit_overrides=lambda trial: {k: trial.params[k] for k in ctx.space},
        notes=[f"Search space: {', '.join(ctx.space)}.", prune.note],
    )
