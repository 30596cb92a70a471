"""An optuna study's page: objective history and per-parameter slices from ``trials.csv``,
the best trials and the study's own results (``summary.json``), the figures it drew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import MaxNLocator

from reports import numbers
from reports.contracts.manifest import MANIFEST
from reports.contracts.study import CONTENDED_COLUMN, StudyFolder
from reports.contracts.suite_results import is_contended, recorded_true
from reports.profile.figures import SCALES, set_scale
from reports.site.discover import Run
from reports.site.overrides_text import overrides_text
from reports.site.render import Page, copy_data, render_run_page, save_figure
from reports.site.study_environment import (
    contended_trials,
    contention_unrecorded,
    study_environment,
)
from reports.site.training_figures import COST_LABELS
from reports.study_results import (
    TIED,
    name_label,
    result_cell,
    result_label,
    result_text,
    tie_text,
)


def objective_columns(trials: pd.DataFrame) -> list[str]:
    return [c for c in trials.columns if c == "value" or c.startswith(("value_", "values_"))]


def _name(column: str) -> str:
    return column.split("_", 1)[1] if "_" in column else column


INTERRUPTED_ATTR = "user_attrs_interrupted"  # a signal stopped it; it was queued again


def readable_trials(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials as the page shows them: a trial a signal stopped (and the study queued again)
    is ``INTERRUPTED``, not ``FAIL``; a duration in seconds, not ``0 days 00:00:30.426187``."""
    shown = trials.copy()
    if INTERRUPTED_ATTR in shown:
        stopped = shown[INTERRUPTED_ATTR].map(recorded_true)
        shown.loc[stopped, "state"] = "INTERRUPTED"
    if "duration" in shown:
        seconds = pd.to_timedelta(shown["duration"], errors="coerce").dt.total_seconds()
        shown["duration"] = seconds.map(lambda s: numbers.MISSING if pd.isna(s) else f"{s:.1f} s")
    return shown


def axis_label(column: str) -> str:
    """An objective's axis label: its name in words, ``(%)`` for an accuracy."""
    return name_label(_name(column))


def param_label(param: str) -> str:
    """A parameter's name in words (``params_seq_len``: ``n (seq_len)``)."""
    return name_label(param.removeprefix("params_"))


def objective_cell(name: str, value: Any) -> str:
    """An objective's value under a header giving its unit (:func:`name_label`): an accuracy
    in percent without ``%``."""
    return numbers.percent(value) if numbers.is_accuracy(name) else numbers.text(value)


def label_objective(axes: plt.Axes, column: str) -> None:
    """The objective's y label; a cost (memory, a time: a training result's or a profile's,
    such as Appendix A's study's ``peak_mem_mb``) in words with its unit, on its scale as on
    every page (memory log, time linear: docs/reports.md), the label saying which."""
    name = _name(column)
    if name in SCALES:
        set_scale(axes, name, COST_LABELS.get(name))
    else:
        axes.set_ylabel(axis_label(column))


def shown_values(trials: pd.DataFrame, column: str) -> pd.Series:
    """An objective as the page shows it: an accuracy in percent (every page does)."""
    values = pd.to_numeric(trials[column], errors="coerce")
    return values * 100 if numbers.is_accuracy(_name(column)) else values


def history_figure(
    trials: pd.DataFrame, column: str, direction: str, per: str | None = None
) -> plt.Figure:
    """Objective per finished trial and the best so far (optuna's optimization history); with
    ``per`` (a parameter) the best so far of each of its values, in a colour of its own."""
    done = trials[trials["state"] == "COMPLETE"].sort_values("number")
    figure, axes = plt.subplots(figsize=(6.4, 4.2))
    groups = [(None, done)] if per is None else list(done.groupby(f"params_{per}", sort=True))
    for index, (value, group) in enumerate(groups):
        values = shown_values(group, column)
        best = values.cummin() if direction == "minimize" else values.cummax()
        if per is None:
            axes.plot(group["number"], values, "o", color="tab:blue", label="trial")
            axes.step(group["number"], best, where="post", color="tab:red",
                      label=f"best ({direction})")  # fmt: skip
        else:  # one colour per value: its trials (points) and its best so far (line)
            label = f"{param_label(per)} = {numbers.text(value)}: best ({direction})"
            axes.plot(group["number"], values, "o", color=f"C{index}")
            axes.step(group["number"], best, where="post", color=f"C{index}", label=label)
    axes.set_xlabel("trial")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # trials are counted
    label_objective(axes, column)
    axes.set_title(f"Optimization history: {axis_label(column)}", fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    return figure


TRIAL_COLOURS = "viridis"  # the trial numbers' colours of a slice plot (none of them white)


def slice_figure(
    trials: pd.DataFrame, column: str, params: list[str], per: str | None = None
) -> plt.Figure:
    """Objective against each parameter, coloured by trial number (optuna's slice plot); with
    ``per`` (a parameter, as in :func:`history_figure`) against each other parameter, one colour
    and line per value of ``per`` (its trials are not compared with another value's)."""
    done = trials[trials["state"] == "COMPLETE"]
    if per is not None:
        params = [p for p in params if p != f"params_{per}"] or params
    figure, axes = plt.subplots(
        1, len(params), figsize=(3.4 * len(params) + 1.2, 3.8), sharey=True, layout="constrained"
    )  # constrained: the labels, the colour bar and the title all inside the figure
    axes = [axes] if len(params) == 1 else list(axes)
    for ax, param in zip(axes, params, strict=True):
        if per is None:
            values = shown_values(done, column)
            points = ax.scatter(done[param], values, c=done["number"], cmap=TRIAL_COLOURS, s=28)
        else:  # the history figure's colours, one line per value of ``per``
            for index, (value, group) in enumerate(done.groupby(f"params_{per}", sort=True)):
                group = group.sort_values(param)
                label = f"{param_label(per)} = {numbers.text(value)}"
                values = shown_values(group, column)
                ax.plot(group[param], values, "o-", color=f"C{index}", ms=4, lw=1, label=label)
        ax.set_xlabel(param_label(param))
        ax.grid(alpha=0.3)
    label_objective(axes[0], column)  # the y axis is shared: one scale for every slice
    if per is None:
        figure.colorbar(points, ax=axes, label="trial", ticks=MaxNLocator(integer=True))
        title = f"Slices: {axis_label(column)} vs each parameter"
    else:
        axes[-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        shown = ", ".join(param_label(p) for p in params)
        title = f"Slices: {axis_label(column)} vs {shown},\none colour per {param_label(per)}"
    figure.suptitle(title, fontsize=10)
    return figure


def result_tables(results: dict[str, Any]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The study's ``summary.json`` results: scalars as facts, lists of records as tables, each
    key under its label (:func:`result_label`)."""
    facts, tables = {}, []
    for key, value in results.items():
        label = result_label(key)
        if key.endswith(TIED):  # said beside its result
            continue
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            keys = list(dict.fromkeys(k for record in value for k in record))
            rows = [[result_cell(k, record.get(k)) for k in keys] for record in value]
            header = [result_label(k) for k in keys]
            tables.append({"title": label, "header": header, "rows": rows})
        else:
            facts[label] = result_text(results, key)
    return facts, tables


def best_cells(objectives: dict[str, str], values: list[Any]) -> list[str]:
    """A best trial's objective values, each in its objective's style."""
    names = list(objectives) or ["value"] * len(values)
    return [
        numbers.metric(n, v) if numbers.is_accuracy(n) else numbers.quantity(v)
        for n, v in zip(names, values, strict=False)
    ]


def best_values(objectives: dict[str, str], best: list[dict], per: str | None = None) -> str:
    """The best trial's values (one study objective), the Pareto front's size (several), or
    with ``per`` each best trial's parameters and values (one per value of ``per``)."""
    if not best:
        return numbers.MISSING
    names = list(objectives) or ["value"]

    def values(trial: dict) -> str:
        shown = best_cells(objectives, trial.get("values") or [])
        return ", ".join(f"{n} {v}" for n, v in zip(names, shown, strict=False))

    if per is not None:
        return "; ".join(
            ", ".join(f"{k}={numbers.text(v)}" for k, v in trial["params"].items())
            + f": {values(trial)}"
            for trial in best
        )
    if len(best) > 1:
        return f"{len(best)} on the Pareto front"
    return values(best[0])


def build(run: Run, page_dir: Path) -> Page:
    study = StudyFolder(run.folder)
    trials = study.read_trials()
    summary = study.read_summary()
    objectives = run.manifest.get("objectives") or summary.get("objectives") or {}
    params = [c for c in trials.columns if c.startswith("params_")]  # trials.csv's: by name
    said = [f"params_{k}" for k in ((summary.get("best") or [{}])[0].get("params") or {})]
    params.sort(key=lambda c: said.index(c) if c in said else len(said))  # the console's order
    figures = []
    if (trials["state"] == "COMPLETE").any():
        for column in objective_columns(trials):
            direction = objectives.get(_name(column), "minimize")
            figure = history_figure(trials, column, direction, summary.get("best_per"))
            figures.append(
                save_figure(
                    figure, page_dir, f"history_{_name(column)}", f"History of {axis_label(column)}"
                )
            )
            if params:
                figure = slice_figure(trials, column, params, summary.get("best_per"))
                figures.append(
                    save_figure(
                        figure,
                        page_dir,
                        f"slice_{_name(column)}",
                        f"{axis_label(column)} vs parameters",
                    )
                )
    # optuna's figures pool every value of best_per, which the page keeps apart (a folder
    # written before tune stopped drawing them has them)
    own = {} if summary.get("best_per") else (run.manifest.get("files") or {}).get("figures")
    own = dict(own or {})
    copied = set(copy_data(run.folder, list(own.values()), page_dir / "study"))
    study_figures = [
        {"title": name, "png": f"study/{path}"} for name, path in own.items() if path in copied
    ]
    facts, tables = result_tables(summary.get("results") or {})
    trials = readable_trials(trials)
    shown = ["number", "state", *objective_columns(trials), *params, "duration"]
    contended = trials.get(CONTENDED_COLUMN, pd.Series(False, index=trials.index))
    contended = contended.map(is_contended)
    columns = [c for c in shown if c in trials]
    values = set(objective_columns(trials))
    trial_rows = [
        [
            objective_cell(_name(c), v) if c in values else numbers.metric(c, v)
            for c, v in zip(columns, row, strict=True)
        ]
        for row in trials[columns].values
    ]
    if "duration" in trials:  # the trial's wall time, inflated when its epochs were contended
        for cells, marked in zip(trial_rows, contended, strict=True):
            cells[-1] += " c" if marked else ""
    meta = {
        k: numbers.text(run.manifest.get(k))
        for k in ("study", "optuna_study", "task", "encoder", "seed", "storage")
        if k in run.manifest
    }
    title = f"Study {run.manifest.get('optuna_study') or run.name}"
    render_run_page(
        "study.html.j2",
        page_dir,
        run,
        title,
        study_environment(trials, run.manifest),
        meta=meta,
        trains=run.manifest.get("task") is not None,  # a training study: its trials' options
        overrides=overrides_text(run.manifest.get("overrides") or {}),
        objectives={name_label(k): v for k, v in objectives.items()},
        counts=run.manifest.get("trial_counts") or {},
        best=[
            {
                **trial,
                "params": {name_label(k): v for k, v in (trial.get("params") or {}).items()},
                "tie": tie_text(trial["tied_with"]) if trial.get("tied_with") else "",
                "cells": [
                    objective_cell(n, v)
                    for n, v in zip(
                        list(objectives) or ["value"] * len(trial.get("values") or []),
                        trial.get("values") or [],
                        strict=False,
                    )
                ],
            }
            for trial in summary.get("best") or []
        ],
        best_per=name_label(summary.get("best_per") or ""),
        fit_command=summary.get("fit_command") or "",
        notes=summary.get("notes") or [],
        figures=figures,
        study_figures=study_figures,
        not_drawn={} if summary.get("best_per") else summary.get("figures_not_drawn") or {},
        facts=facts,
        tables=tables,
        trial_header=[
            axis_label(c) if c in values else param_label(c) for c in shown if c in trials
        ],
        trial_rows=trial_rows,
        contended_trials=int(contended.sum()),
        contended_rows=contended_trials(trials),
        contention_unrecorded=contention_unrecorded(trials),
        files=copy_data(run.folder, [*study.data_files(), MANIFEST], page_dir),
    )
    counts = run.manifest.get("trial_counts") or {}
    return Page(
        run.slug,
        "study",
        title,
        str(run.folder),
        {
            "study": str(run.manifest.get("study", "")),
            "objectives": ", ".join(f"{k} ({v})" for k, v in objectives.items()),
            "trials": ", ".join(f"{v} {k}" for k, v in counts.items()),
            "best": best_values(objectives, summary.get("best") or [], summary.get("best_per")),
        },
    )
