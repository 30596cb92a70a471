"""A study's folder: ``trials.csv``, matplotlib figures, ``summary.json``, ``best_config.yaml``
(the best trial as a ``sanbench fit --config`` file), manifest. ``sanbench report OUT`` renders
the study's HTML page from them (reports/site/study_page.py).

Figures come from ``optuna.visualization.matplotlib``: optimization history, parameter
importances and slice plots (per objective), and the Pareto front for multi-objective studies.
A figure that cannot be drawn yet (e.g. importances need two finished trials) is listed with
the reason in ``summary.json`` (``figures_not_drawn``). Files are written atomically, so
concurrent workers may all call ``write``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib
import optuna
from matplotlib.ticker import MaxNLocator, PercentFormatter
from optuna.trial import FrozenTrial, TrialState

from harness.command_parser import options_typed
from harness.redaction import runnable_line
from harness.studies.fitting import unset_by_trial
from harness.studies.plans import StudyPlan
from harness.studies.separable import inseparable
from harness.studies.workers import (
    FINISHED,
    STARTED_ATTR,
    SURPLUS_ATTR,
    interrupted_numbers,
    state_counts,
)
from harness.training.settings.fit_run import FitRun
from reports import numbers
from reports.contracts.atomic import write_atomic
from reports.contracts.manifest import write_manifest
from reports.contracts.study import StudyFolder
from reports.site.study_page import TRIAL_COLOURS
from reports.study_results import name_label

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from optuna.visualization import matplotlib as ovm


def write_trials_csv(study: optuna.Study, folder: StudyFolder) -> int:
    """Every trial but the surplus ones (failed before running); returns the row count. An
    interrupted trial's state is ``INTERRUPTED``, as summary.json counts it (optuna's ``FAIL``
    until 2026-11-30, outside check 6y). The workers' own mark ``started`` is left out."""
    frame = study.trials_dataframe(multi_index=False)
    if len(frame):
        frame.loc[frame["number"].isin(interrupted_numbers(study)), "state"] = "INTERRUPTED"
    column = f"user_attrs_{SURPLUS_ATTR}"
    if column in frame:
        frame = frame[frame[column] != True]  # noqa: E712  (NaN for ordinary trials)
        frame = frame.drop(columns=[column])
    frame = frame.drop(columns=[f"user_attrs_{STARTED_ATTR}"], errors="ignore")
    folder.write_trials(frame)
    return len(frame)


def _page_style(axes: Any, objective: str, colour_trials: bool = False) -> Any:
    """optuna's figure of ``objective`` as the page draws its own: an accuracy's axis in
    percent (``dev acc (%)``); with ``colour_trials`` (a slice plot) the page's colours of
    trial numbers, where optuna's own draw the first trial white, unseen."""
    panels = list(axes.flat) if hasattr(axes, "flat") else [axes]
    if numbers.is_accuracy(objective):
        for panel in panels:
            panel.yaxis.set_major_formatter(PercentFormatter(1.0, symbol=""))
        panels[0].set_ylabel(name_label(objective))
    for panel in panels if colour_trials else []:
        for points in panel.collections:
            points.set_cmap(TRIAL_COLOURS)
    return axes


def _importance_style(axes: Any, objective: str) -> Any:
    """optuna's importances with the objective in the pages' words (``dev acc``, where optuna's
    legend said ``dev_acc``): what the bars rank the parameters for."""
    legend = axes.get_legend()
    words = name_label(objective).removesuffix(" (%)")
    for text in legend.get_texts() if legend else []:
        if text.get_text() == objective:
            text.set_text(f"importance for {words}")
    return axes


def _figures(study: optuna.Study, plan: StudyPlan) -> dict[str, Callable[[], Any]]:
    figures: dict[str, Callable[[], Any]] = {}
    for index, name in enumerate(plan.metric_names):
        target = (lambda t, i=index: t.values[i]) if plan.multi_objective else None
        kwargs = {"target": target, "target_name": name} if target else {}
        suffix = f"_{name}" if plan.multi_objective else ""
        figures[f"history{suffix}"] = lambda kw=kwargs, n=name: _page_style(
            ovm.plot_optimization_history(study, **kw), n
        )
        figures[f"importances{suffix}"] = lambda kw=kwargs, n=name: _importance_style(
            ovm.plot_param_importances(study, **kw), n
        )
        figures[f"slice{suffix}"] = lambda kw=kwargs, n=name: _page_style(
            ovm.plot_slice(study, **kw), n, colour_trials=True
        )
    if plan.multi_objective:
        figures["pareto_front"] = lambda: ovm.plot_pareto_front(study)
    return figures


def write_figures(study: optuna.Study, plan: StudyPlan, out: Path) -> tuple[dict, dict]:
    """PNG files drawn, and the reasons for the ones that could not be drawn. None for a study
    whose trials are compared per value of ``plan.best_per``: optuna's figures pool them all
    (one best-so-far line, importances ranking ``best_per`` as a tuned choice)."""
    drawn, skipped = {}, {}
    finished = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    for name, draw in _figures(study, plan).items():
        if plan.best_per is not None:
            skipped[name] = (
                f"optuna's figure pools every {plan.best_per}, whose trials are not compared: "
                f"the page draws each {plan.best_per} in a colour of its own"
            )
            continue
        if not finished:
            skipped[name] = "no completed trial yet"
            continue
        searched = sorted({key for trial in finished for key in trial.params})
        varied = [key for key in searched if len(_values(finished, key)) > 1]
        if name.startswith("importances") and len(varied) < 2:
            fixed = [key for key in searched if key not in varied]
            one_value = f"; {', '.join(fixed)} took one value" if fixed else ""
            skipped[name] = (
                f"one searched parameter ({', '.join(searched) or 'none'}): optuna ranks it "
                "1.00 whatever the trials, so there is nothing to compare"
                if not fixed
                else f"one parameter varied ({', '.join(varied) or 'none'}{one_value} in the "
                "finished trials): optuna ranks what took one value as if it mattered, so "
                "there is nothing to compare"
            )
            continue
        unclear = inseparable(finished, varied) if name.startswith("importances") else ""
        if unclear:
            skipped[name] = unclear
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                axes = draw()
                first = axes.flat[0] if hasattr(axes, "flat") else axes
                figure = first.get_figure()
                figure.set_size_inches(8, 5)  # optuna's layout (tight_layout put the slice
                # plot's colour bar over its panels); the saved image is cut to what is drawn
                if name.startswith("history"):  # trials are counted: whole-number ticks
                    first.xaxis.set_major_locator(MaxNLocator(integer=True))
        except (ValueError, RuntimeError, ZeroDivisionError) as error:
            skipped[name] = f"{type(error).__name__}: {error}"
            plt.close("all")
            continue
        write_atomic(
            out / f"{name}.png",
            lambda tmp, f=figure: f.savefig(tmp, dpi=110, format="png", bbox_inches="tight"),
        )
        plt.close(figure)
        drawn[name] = f"{name}.png"
    return drawn, skipped


def _values(trials: list[FrozenTrial], key: str) -> set[str]:
    """The values the parameter ``key`` took in ``trials`` (as text: a choice may be a list)."""
    return {repr(trial.params[key]) for trial in trials if key in trial.params}


def best_trials(study: optuna.Study, plan: StudyPlan) -> list[FrozenTrial]:
    """The Pareto front (multi-objective), the best trial, or with ``plan.best_per`` the best
    trial of each of that parameter's values (in its order, the first of equals); empty before
    any completes."""
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if not done:
        return []
    if plan.best_per is None:  # the Pareto front by number, as its results table
        return (
            sorted(study.best_trials, key=lambda t: t.number)
            if plan.multi_objective
            else [study.best_trial]
        )
    sign = 1 if plan.directions[0] == "minimize" else -1
    best: dict[Any, FrozenTrial] = {}
    for trial in sorted(done, key=lambda t: (sign * t.values[0], t.number)):
        best.setdefault(trial.params[plan.best_per], trial)
    return [best[value] for value in sorted(best)]


def tied_with(study: optuna.Study, plan: StudyPlan, trial: FrozenTrial) -> list[int]:
    """The other finished trials whose objective values ``trial`` (a best one, or one of the
    Pareto front) equals, of its value of ``plan.best_per`` if any: optuna took the first."""
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    per = plan.best_per
    return [
        t.number
        for t in done
        if t.number != trial.number
        and t.values == trial.values
        and (per is None or t.params.get(per) == trial.params.get(per))
    ]


def _pick_for_command(best: list[FrozenTrial]) -> FrozenTrial | None:
    """The trial whose config is offered to ``sanbench fit``: best on the first objective."""
    return max(best, key=lambda t: t.values[0]) if best else None


def unvalidated_notes(study: optuna.Study) -> list[str]:
    """A note when the study prunes and none of its finished trials validated during training
    (each budget ended before its first validation): the pruner's note says when it would
    act, this one that it never had a value to act on."""
    if isinstance(study.pruner, optuna.pruners.NopPruner):
        return []
    finished = study.get_trials(deepcopy=False, states=FINISHED)
    if not finished or any(trial.intermediate_values for trial in finished):
        return []
    return [
        "No trial validated during training (each one's budget ended before its first "
        "validation): nothing could be pruned, and each trial's dev score is that of its last "
        "weights, not the best on dev."
    ]


def write_outputs(
    study: optuna.Study,
    plan: StudyPlan,
    out: Path,
    storage_label: str,
    dashboard: str,
    fit_run_for: Callable[[dict[str, Any]], FitRun] | None,
    meta: dict[str, Any],
) -> dict[str, Any]:
    """Write every output file of the study into ``out``; returns the summary dict."""
    out.mkdir(parents=True, exist_ok=True)
    folder = StudyFolder(out)
    rows = write_trials_csv(study, folder)
    figures, skipped = write_figures(study, plan, out)
    best = best_trials(study, plan)
    chosen = _pick_for_command(best)
    command = ""
    if chosen is not None and plan.fit_overrides is not None and fit_run_for is not None:
        overrides = plan.fit_overrides(chosen)
        fit_run = fit_run_for(overrides)
        with options_typed(unset_by_trial(overrides)):  # the trial's values: not as typed
            text = fit_run.to_yaml()
        folder.write_best_config(text)
        words = ["fit", "--config", str(folder.best_config), "--out", str(fit_run.out_dir)]
        command = runnable_line(words)
    counts = state_counts(study)
    extra = plan.summarize(study)
    summary = {
        "study": plan.name,
        "optuna_study": study.study_name,
        "objectives": dict(zip(plan.metric_names, plan.directions, strict=True)),
        "trial_counts": counts,
        "best": [
            {
                "number": t.number,
                "params": t.params,
                "values": t.values,
                **({"tied_with": tied} if (tied := tied_with(study, plan, t)) else {}),
            }
            for t in best
        ],
        **({"best_per": plan.best_per} if plan.best_per else {}),
        "fit_config": folder.best_config.name if command else "",
        "fit_command": command,
        "results": extra,
        "notes": [*plan.notes, *(unvalidated_notes(study) if plan.fit_overrides else [])],
        "figures_not_drawn": skipped,
    }
    folder.write_summary(summary)
    manifest = {
        "kind": "study",
        **meta,
        "study": plan.name,
        "optuna_study": study.study_name,
        "storage": storage_label,
        "dashboard": dashboard,
        "objectives": summary["objectives"],
        "trial_counts": counts,
        "trials_csv_rows": rows,
        "written": datetime.now(UTC).isoformat(timespec="seconds"),
        "files": folder.files(figures, with_best_config=bool(command)),
    }
    write_manifest(out, manifest)
    return summary
