"""Create or join a study on its storage, run this worker's trials, write the study folder."""

from __future__ import annotations

import shlex
import sys
import warnings
from typing import Any

import optuna

from harness.studies.fitting import best_fit_run
from harness.studies.outputs import write_outputs
from harness.studies.plans import StudyPlan, TuneContext
from harness.studies.storage import dashboard_command, open_storage, storage_url
from harness.studies.workers import run_worker


def storage_label(spec: str | None) -> str:
    """The storage as shown in outputs: URL passwords hidden."""
    return storage_url(spec).render_as_string(hide_password=True)


def open_study(
    plan: StudyPlan, study_name: str, storage_spec: str | None, **storage_options: Any
) -> optuna.Study:
    """The shared study (created by the first worker, loaded by the others)."""
    study = optuna.create_study(
        study_name=study_name,
        storage=open_storage(storage_spec, **storage_options),
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
    plan: StudyPlan,
    study_name: str,
    storage_spec: str | None,
    n_trials: int | None,
    run_trials: bool = True,
    max_retry: int = 2,
    heartbeat_s: int = 30,
) -> dict[str, Any]:
    """Run this worker's share of ``n_trials`` (default: the plan's), then write the outputs."""
    study = open_study(plan, study_name, storage_spec, heartbeat_s=heartbeat_s, max_retry=max_retry)
    if run_trials:
        run_worker(study, plan.objective, n_trials or plan.default_trials, poll_s=heartbeat_s)
    meta = {
        "command": shlex.join(["sanbench", *sys.argv[1:]]),
        "task": ctx.task,
        "encoder": ctx.encoder,
        "seed": ctx.seed,
        "overrides": ctx.overrides,
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
