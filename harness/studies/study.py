"""Create or join a study on its storage, run this worker's trials, write the study folder."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import optuna
from optuna.storages import RDBStorage

from datamodules.paths import expanded
from harness.errors import InputError
from harness.launch.job_run import noted_runs
from harness.redaction import recorded_command, redact_passwords
from harness.studies.console_lines import params_text, values_text
from harness.studies.fitting import best_fit_run
from harness.studies.outputs import write_outputs
from harness.studies.plans import BLOCK_LENGTH_MEMORY, StudyPlan, TuneContext
from harness.studies.registry import PLANS
from harness.studies.storage import (
    HEARTBEAT_S,
    MAX_RETRY,
    dashboard_command,
    open_storage,
    storage_url,
)
from harness.studies.workers import (
    FINISHED,
    RESUMES_ATTR,
    SURPLUS_ATTR,
    fail_stale,
    reclaim_killed,
    run_worker,
)
from reports import numbers


def storage_label(spec: str | None) -> str:
    """The storage as shown in outputs: URL passwords hidden (:func:`redact_passwords`)."""
    return redact_passwords(storage_url(spec).render_as_string())


def trial_line(plan: StudyPlan, trial: optuna.trial.FrozenTrial) -> str | None:
    """One line for a finished trial: number, parameters, value(s), pruned or failed (None for
    a surplus trial, which never ran)."""
    if trial.user_attrs.get(SURPLUS_ATTR):
        return None
    head = f"trial {trial.number}: {params_text(trial.params)}"
    if RESUMES_ATTR in trial.user_attrs:
        head += f" (continues interrupted trial {trial.user_attrs[RESUMES_ATTR]})"
    state = trial.state
    if state == optuna.trial.TrialState.COMPLETE:
        return f"{head} -> {values_text(plan.metric_names, trial.values)}"
    if state == optuna.trial.TrialState.PRUNED:
        steps = trial.intermediate_values
        # the pruner's val_acc (val_pearson) in the unit of the study's dev_acc (dev_pearson)
        reported = numbers.metric(plan.metric_names[0], steps[max(steps)]) if steps else ""
        last = f" at step {max(steps)} (reported {reported})" if steps else ""
        return f"{head} -> pruned{last}"
    return f"{head} -> {state.name.lower()}"


def print_trial_line(plan: StudyPlan) -> Callable[[optuna.Study, optuna.trial.FrozenTrial], None]:
    """An optuna callback printing :func:`trial_line` as each trial of this worker finishes."""

    def callback(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        line = trial_line(plan, trial)
        if line is not None:
            print(line, flush=True)

    return callback


SETTINGS_ATTR = "sanbench_settings"  # what every trial of a study trains with
# the resolved config when the study read a --config file: its recorded command runs with it
CONFIG_FILE = "tune-config.yaml"


def study_settings(ctx: TuneContext) -> dict[str, Any]:
    """What a trial's result depends on besides its parameters: a study's trials are compared
    with each other, so they must all have run with these."""
    return json.loads(
        json.dumps(
            {
                "task": ctx.task,
                "encoder": ctx.encoder,
                "seed": ctx.seed,
                "budget": ctx.budget,
                "fit_options": ctx.overrides,
                "space": ctx.space,
                "embeddings": None if ctx.embeddings is None else ctx.embeddings.name,
                "lengths": list(ctx.lengths),
                "batch_size": ctx.batch_size,
                "dim": ctx.dim,
                "attention_impl": ctx.attention_impl if ctx.study == BLOCK_LENGTH_MEMORY else None,
            },
            default=str,
        )
    )


def check_settings(study: optuna.Study, settings: dict[str, Any]) -> int:
    """Record ``settings`` in a new study; for an existing one, refuse other settings (one line
    per difference) and return how many trials it has finished."""
    saved = study.user_attrs.get(SETTINGS_ATTR)
    if saved is None:
        study.set_user_attr(SETTINGS_ATTR, settings)
        return 0
    differences = [
        f"{key}: {saved.get(key)!r} in the study, {settings.get(key)!r} now"
        for key in sorted(set(saved) | set(settings))
        if saved.get(key) != settings.get(key)
    ]
    if differences:
        raise InputError(
            "\n".join(
                [
                    f"study {study.study_name!r} exists with other settings; its trials would "
                    "not be comparable with new ones:",
                    *differences,
                    "use the same settings to continue it, or another --study-name",
                ]
            )
        )
    return len(study.get_trials(deepcopy=False, states=FINISHED))


def trials_left(ctx: TuneContext, study_name: str, storage_spec: str, n_trials: int | None) -> int:
    """How many of ``n_trials`` (default: the plan's) the study has still to finish, its
    settings checked first (``check_settings``: recorded in a new study, :class:`InputError` for
    other ones): what a command asks before it launches worker jobs (a worker of a finished
    study imports torch and optuna to find nothing to do). With some left, the study's opening
    lines are said here, once, not by each worker (:func:`say_opening`)."""
    plan = PLANS[ctx.study](ctx)
    storage = open_storage(storage_spec)
    study = open_study(plan, study_name, storage)
    finished = check_settings(study, study_settings(ctx))
    fail_stale(study, storage)  # before the workers start, not by two of them at once
    left = max(0, (n_trials or plan.default_trials) - finished)
    if left:
        say_opening(plan, study_name, finished)
    return left


def reclaim_killed_trials(ctx: TuneContext, study_name: str, storage_spec: str, jobs: str) -> None:
    """The trials of this command's ``process`` jobs ``jobs`` that a third Ctrl-C killed as
    they saved, left running in the storage: queued again and counted interrupted
    (:func:`reclaim_killed`)."""
    runs = noted_runs(ctx.out / "jobs", jobs)
    if runs:
        storage = open_storage(storage_spec)
        reclaim_killed(open_study(PLANS[ctx.study](ctx), study_name, storage), storage, runs)


def say_opening(plan: StudyPlan, study_name: str, finished: int) -> None:
    """The study's notes (pruning, what is tuned) and, for a study continued, its trials done."""
    for note in plan.notes:
        print(note, flush=True)
    if finished:
        print(f"study {study_name!r}: continuing, {finished} trials already finished", flush=True)


def is_finished(ctx: TuneContext, study_name: str, storage_spec: str, n_trials: int | None) -> bool:
    """Whether study ``study_name`` exists with ``ctx``'s settings and has finished ``n_trials``
    (default: the plan's): a rerun trains nothing, so its files are not read again (as a
    finished fit's and suite's are not). Creates nothing: a missing SQLite file is no study."""
    url = storage_url(storage_spec)
    if url.get_backend_name() == "sqlite" and not expanded(url.database or "").is_file():
        return False
    try:
        study = optuna.load_study(study_name=study_name, storage=open_storage(storage_spec))
    except KeyError:  # no study of that name
        return False
    if study.user_attrs.get(SETTINGS_ATTR) != study_settings(ctx):
        return False
    n_trials = n_trials or PLANS[ctx.study](ctx).default_trials
    return len(study.get_trials(deepcopy=False, states=FINISHED)) >= n_trials


def open_study(plan: StudyPlan, study_name: str, storage: RDBStorage) -> optuna.Study:
    """The shared study in ``storage`` (created by the first worker, loaded by the others)."""
    study = optuna.create_study(
        study_name=study_name,
        storage=storage,
        directions=plan.directions,
        sampler=plan.sampler,
        pruner=plan.pruner,
        load_if_exists=True,
    )
    if list(study.directions) != [
        optuna.study.StudyDirection.MAXIMIZE
        if d == "maximize"
        else optuna.study.StudyDirection.MINIMIZE
        for d in plan.directions
    ]:
        raise ValueError(f"study {study_name!r} exists with other objectives; choose another name")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        study.set_metric_names(plan.metric_names)
    return study


def run_study(
    ctx: TuneContext,
    study_name: str,
    storage_spec: str | None,
    n_trials: int | None,
    run_trials: bool = True,
    max_retry: int = MAX_RETRY,
    heartbeat_s: int = HEARTBEAT_S,
    opening: bool = True,
) -> dict[str, Any]:
    """Run this worker's share of ``n_trials`` (default: the plan's) of study ``ctx.study``,
    then write the outputs; returns the summary. ``sanbench tune`` and its worker jobs call it
    (``opening`` False: the command said the study's opening lines, once for all workers)."""
    plan = PLANS[ctx.study](ctx)
    storage = open_storage(storage_spec, heartbeat_s=heartbeat_s, max_retry=max_retry)
    study = open_study(plan, study_name, storage)
    if run_trials:
        done = check_settings(study, study_settings(ctx))
        if opening:
            say_opening(plan, study_name, done)
        run_worker(
            study,
            storage,
            plan.objective,
            n_trials or plan.default_trials,
            callbacks=[print_trial_line(plan)],
            poll_s=heartbeat_s,
        )
    meta = {
        "command": recorded_command(config_file=ctx.out / CONFIG_FILE),
        "task": ctx.task,
        "encoder": ctx.encoder,
        "seed": ctx.seed,
        "overrides": {**ctx.overrides, **ctx.budget},  # what every trial trained with
    }
    return write_outputs(
        study,
        plan,
        ctx.out,
        storage_label(storage_spec),
        dashboard_command(storage_spec),
        (lambda overrides: best_fit_run(ctx, overrides)) if plan.fit_overrides else None,
        meta,
    )
