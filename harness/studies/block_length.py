"""``block-length``: Bi-BloSAN's block length r in 2..32 against dev accuracy and training memory.

Two objectives (dev accuracy up, peak training memory down) give a Pareto front rather than
one best trial; optuna cannot prune multi-objective studies, so every trial trains to the end.
The summary puts the most accurate r beside Appendix A's r = cbrt(2 (sigma sqrt(2 ln B) + mu))
computed from the task's own training lengths and batch size.
"""

from __future__ import annotations

import inspect
import math
import warnings
from pathlib import Path
from typing import Any

import optuna

from encoders.layers.block_length import appendix_a_r, expected_max_length
from harness.studies.fitting import best_fit_run, dev_metric, fit_trial, require_training
from harness.studies.plans import BLOCK_LENGTH, R_RANGE, StudyPlan, TuneContext
from reports.study_results import TIED

MEMORY = "peak_train_mem_mb"


def length_stats(task: str, data_dir: Path, batch_size: int, seed: int) -> dict[str, float]:
    """Mean and std of the task's training sentence lengths (no embeddings are loaded, so the
    random-vectors warning says nothing about the trials, which load them)."""
    from datamodules import build_datamodule
    from datamodules.datamodule import RandomVectorsWarning

    datamodule = build_datamodule(task, data_dir=data_dir, batch_size=batch_size, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomVectorsWarning)
        datamodule.setup("fit")
    return dict(datamodule.length_stats)


def block_len_problems(option: str, encoder: str) -> list[str]:
    """``encoder`` (a registered name, set by ``option`` as typed) when it has no ``block_len``
    for the study to tune, one line; checked before any file is read."""
    from encoders.registry import encoder_entry

    if "block_len" in inspect.signature(encoder_entry(encoder).builder).parameters:
        return []
    return [f"{option} {encoder}: has no block_len, which study 'block-length' tunes"]


def dev_results(study: optuna.Study, dev: str) -> dict[str, Any]:
    """The r of the best dev score (the least memory of equals), the other trials it ties with
    (``best_r_by_dev_tied_with``: the same dev score and memory), that score, and the Pareto
    front by trial number, as the page's Best trials table."""
    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    best = max(done, key=lambda t: (t.values[0], -t.values[1]), default=None)
    pareto = sorted(study.best_trials, key=lambda t: t.number) if done else []
    tied = [t.number for t in done if best and t is not best and t.values == best.values]
    return {
        "best_r_by_dev": best.params["block_len"] if best else None,
        **({f"best_r_by_dev{TIED}": tied} if tied else {}),
        f"best_{dev}": best.values[0] if best else None,
        "pareto": [
            {
                "trial": t.number,
                "block_len": t.params["block_len"],
                dev: t.values[0],
                MEMORY: t.values[1],
            }
            for t in pareto
        ],
    }


def plan(ctx: TuneContext) -> StudyPlan:
    task, encoder, data_dir = require_training(ctx)
    if problems := block_len_problems("--encoder", encoder):  # said by tune before: a worker's
        raise ValueError(problems[0])
    config = best_fit_run(ctx, {}).resolved()
    base_options = dict(config["model"]["encoder_options"] or {})
    batch = int(config["data"]["batch_size"])
    stats = length_stats(task, data_dir, batch, ctx.seed)
    dev, _ = dev_metric(task)

    def overrides(r: int) -> dict[str, Any]:
        return {"model.encoder_options": {**base_options, "block_len": r}}

    def objective(trial: optuna.Trial) -> tuple[float, float]:
        r = trial.suggest_int("block_len", *R_RANGE)
        metrics = fit_trial(ctx, trial, overrides(r))
        memory = metrics.get(MEMORY)
        return float(metrics[dev]), float("nan") if memory is None else float(memory)

    def summarize(study: optuna.Study) -> dict[str, Any]:
        analytic = appendix_a_r(stats["mean"], stats["std"], batch)
        return {
            "length_mean": stats["mean"],
            "length_std": stats["std"],
            "batch_size": batch,
            "expected_max_length": expected_max_length(stats["mean"], stats["std"], batch),
            "appendix_a_r": analytic,
            "appendix_a_r_ceil": math.ceil(analytic),
            **dev_results(study, dev),
        }

    return StudyPlan(
        name=BLOCK_LENGTH,
        metric_names=[dev, MEMORY],
        directions=["maximize", "minimize"],
        objective=objective,
        default_trials=12,
        sampler=optuna.samplers.TPESampler(),
        pruner=optuna.pruners.NopPruner(),
        fit_overrides=lambda trial: overrides(trial.params["block_len"]),
        summarize=summarize,
        notes=[
            "Two objectives: optuna cannot prune multi-objective studies, so pruning is off.",
            "Each trial trains in a fresh process so that its peak memory is its own.",
        ],
    )
