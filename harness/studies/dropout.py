"""``dropout``: the keep probability (1 - dropout) of any encoder, and MTSA's attention keep.

The keep probability ranges over [0.5, 0.95] (the papers use 0.5-0.8). For encoders whose
builder takes ``attn_dropout`` (MTSA, App. A.3), the attention keep probability ranges over
[0.5, 1.0] (1.0 = no attention dropout, the authors' setting). One objective (dev accuracy,
Pearson's r on SICK), so unpromising trials are pruned by a median pruner after each
validation where that saves training, unless ``--no-prune`` (``harness.studies.pruning``).
"""

from __future__ import annotations

import inspect
from typing import Any

import optuna
from optuna.trial import FrozenTrial

from harness.studies.fitting import (
    best_fit_run,
    dev_metric,
    fit_trial,
    require_training,
    trial_trainer,
)
from harness.studies.plans import DROPOUT, DROPOUT_KEY, StudyPlan, TuneContext

KEEP_RANGE = (0.5, 0.95)
ATTN_KEEP_RANGE = (0.5, 1.0)


def supports_attention_dropout(encoder: str) -> bool:
    from encoders.registry import encoder_entry

    return "attn_dropout" in inspect.signature(encoder_entry(encoder).builder).parameters


def plan(ctx: TuneContext) -> StudyPlan:
    from harness.studies.pruning import pruning  # Lightning: not for a study that never trains

    task, encoder, _ = require_training(ctx)
    base_options = dict(best_fit_run(ctx, {}).resolved()["model"]["encoder_options"] or {})
    attention = supports_attention_dropout(encoder)
    dev, monitor = dev_metric(task)
    prune = pruning(ctx, monitor, trial_trainer(ctx))

    def overrides(params: dict[str, Any]) -> dict[str, Any]:
        chosen: dict[str, Any] = {DROPOUT_KEY: round(1.0 - params["keep_prob"], 6)}
        if "attn_keep_prob" in params:
            attn = round(1.0 - params["attn_keep_prob"], 6)
            chosen["model.encoder_options"] = {**base_options, "attn_dropout": attn}
        return chosen

    def objective(trial: optuna.Trial) -> float:
        params = {"keep_prob": trial.suggest_float("keep_prob", *KEEP_RANGE)}
        if attention:
            params["attn_keep_prob"] = trial.suggest_float("attn_keep_prob", *ATTN_KEEP_RANGE)
        return float(fit_trial(ctx, trial, overrides(params), prune.callbacks(trial))[dev])

    notes = [prune.note]
    if not attention:
        notes.append(f"{encoder} has no attention dropout: only the keep probability is tuned.")

    def fit_overrides(trial: FrozenTrial) -> dict[str, Any]:
        return overrides(trial.params)

    return StudyPlan(
        name=DROPOUT,
        metric_names=[dev],
        directions=["maximize"],
        objective=objective,
        default_trials=20,
        sampler=optuna.samplers.TPESampler(),
        pruner=prune.pruner,
        fit_overrides=fit_overrides,
        notes=notes,
    )
