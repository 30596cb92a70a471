"""Whether a study's finished trials can tell its varied parameters apart, so that optuna's
importances rank something: a linear model of the objective on the parameters (an intercept, a
column per numeric parameter, a column per choice of a categorical one beyond its first) has one
solution only when its design matrix over the trials has full column rank. Two trials that
changed two parameters together (100/adadelta, 200/adam) have rank 2 of 3: either parameter, or
both, may have made the difference, and optuna ranked them 0.76/0.24 all the same."""

from __future__ import annotations

import numpy as np
from optuna.distributions import CategoricalDistribution
from optuna.trial import FrozenTrial


def design_matrix(trials: list[FrozenTrial], keys: list[str]) -> np.ndarray:
    """One row per trial that set every one of ``keys``: 1, then each numeric parameter's
    value (centred and scaled, so that no unit decides the rank), then 0/1 per choice of a
    categorical parameter beyond the first it took."""
    rows = [trial for trial in trials if all(key in trial.params for key in keys)]
    columns = [np.ones(len(rows))]
    for key in keys:
        values = [trial.params[key] for trial in rows]
        if any(isinstance(t.distributions[key], CategoricalDistribution) for t in rows):
            choices = list(dict.fromkeys(map(repr, values)))
            columns += [np.array([repr(v) == c for v in values], float) for c in choices[1:]]
        else:
            numeric = np.array(values, float)
            spread = numeric.std() or 1.0
            columns.append((numeric - numeric.mean()) / spread)
    return np.column_stack(columns)


def inseparable(trials: list[FrozenTrial], keys: list[str]) -> str:
    """Why ``trials`` cannot tell ``keys`` apart, or "" when they can (full column rank)."""
    matrix = design_matrix(trials, keys)
    rank = int(np.linalg.matrix_rank(matrix))
    if rank == matrix.shape[1]:
        return ""
    return (
        f"the {len(trials)} finished trials cannot tell {', '.join(keys)} apart: their values "
        f"moved together (a linear model of the objective on them has {matrix.shape[1]} "
        f"unknowns, an intercept and one per numeric parameter or extra choice, and the trials "
        f"fix {rank}); optuna would still rank them, arbitrarily, so there is nothing to compare"
    )
