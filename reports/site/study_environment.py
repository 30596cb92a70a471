"""Where a study's trials ran and what CPU they got, from its trials table: the page's environment
(each recorded value with the trials it holds for, the load average and CPU granted across the
trials) and the evidence behind each contended trial, as the training page gives its runs'."""

from __future__ import annotations

import pandas as pd

from reports import numbers
from reports.contracts.fit_folder import METRICS
from reports.contracts.study import (
    CONTENDED_COLUMN,
    GRANTED_COLUMN,
    LOAD_COLUMNS,
    TRIAL_ENVIRONMENT,
    TRIALS,
)
from reports.contracts.suite_results import is_contended

RUN_DIR_COLUMN = "user_attrs_run_dir"  # a training trial's fit folder
# a training study written before its trials recorded where they ran and what CPU they got
UNRECORDED = (
    f"not recorded: this study's {TRIALS} has no column of where its trials ran or of the "
    f"load and CPU they got (written by sanbench before 2026-11-30; a trial's {METRICS} has "
    "them where its run folder is kept)"
)


def _trial_numbers(numbered: pd.Series) -> str:
    shown = ", ".join(str(int(n)) for n in numbered)
    return f"trial{'s' if len(numbered) > 1 else ''} {shown}"


def _values(trials: pd.DataFrame, column: str) -> str:
    """One recorded value, or each with the trials that recorded it."""
    recorded = trials.dropna(subset=[column])
    groups = list(recorded.groupby(recorded[column].astype(str), sort=False)["number"])
    if len(groups) == 1:
        return groups[0][0]
    return "; ".join(f"{value} ({_trial_numbers(numbered)})" for value, numbered in groups)


def _span(values: pd.Series, shown: str) -> str:
    """The smallest and largest of ``values`` as ``shown`` (``fixed`` or ``percent``)."""
    show = getattr(numbers, shown)
    low, high = show(values.min()), show(values.max())
    return low if low == high else f"{low}{numbers.RANGE_DASH}{high}"


def study_environment(trials: pd.DataFrame, manifest: dict) -> dict[str, str]:
    """The page's environment: the manifest's when it records one, else what the trials
    recorded (``TRIAL_ENVIRONMENT``, the load average around their training epochs and the CPU
    they got), else a sentence saying it was not recorded and where to look."""
    if manifest.get("environment"):
        return {k: str(v) for k, v in manifest["environment"].items()}
    found = {
        key: _values(trials, f"user_attrs_{key}")
        for key in TRIAL_ENVIRONMENT
        if f"user_attrs_{key}" in trials and trials[f"user_attrs_{key}"].notna().any()
    }
    loads = [pd.to_numeric(trials[c], errors="coerce") for c in LOAD_COLUMNS if c in trials]
    load = pd.concat(loads).dropna() if loads else pd.Series(dtype=float)
    if not load.empty:
        found["load average"] = f"{_span(load, 'fixed')} around the trials' training epochs"
    if GRANTED_COLUMN in trials and trials[GRANTED_COLUMN].notna().any():
        granted = pd.to_numeric(trials[GRANTED_COLUMN], errors="coerce").dropna()
        found["CPU granted"] = f"{_span(granted, 'percent')} % (the trials' training epochs)"
    if found:
        return found
    if RUN_DIR_COLUMN in trials:  # a study that trains: each trial records it, since 2026-11-30
        return {"environment": UNRECORDED}
    return {"environment": "not recorded by this study"}  # one that measures (Appendix A's)


def contention_unrecorded(trials: pd.DataFrame) -> bool:
    """Whether the trials trained without recording whether they were contended (a study
    written before the column): their times may be inflated, and nothing says so."""
    return RUN_DIR_COLUMN in trials and CONTENDED_COLUMN not in trials


def contended_trials(trials: pd.DataFrame) -> list[dict[str, str]]:
    """Each trial whose training epochs were contended: where it ran, the CPU its threads got,
    the load average before and after its epochs and its training time."""
    if CONTENDED_COLUMN not in trials:
        return []
    rows = []
    for _, trial in trials[trials[CONTENDED_COLUMN].map(is_contended)].iterrows():
        before, after = (trial.get(c) for c in LOAD_COLUMNS)
        recorded = not (pd.isna(before) and pd.isna(after))
        rows.append(
            {
                "trial": str(int(trial["number"])),
                "host": numbers.text(trial.get("user_attrs_host")),
                "granted": numbers.percent(trial.get(GRANTED_COLUMN)),
                "load": (
                    f"{numbers.fixed(before)} → {numbers.fixed(after)}"
                    if recorded
                    else numbers.MISSING
                ),
                "train_time_s": numbers.fixed(trial.get("user_attrs_train_time_s"), 1),
            }
        )
    return rows
