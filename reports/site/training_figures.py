"""Figures from training results, laid out like the papers' own; one colour and marker per
encoder. A title says what is drawn and on which task; the paper whose figure it follows is
named as a paper ("the MTSA paper's Fig. 1(c)"), never as if its encoder were drawn.

- the MTSA paper's Fig. 1(c): dev inference time vs training memory, test accuracy as marker
  size and label;
- the Bi-BloSAN paper's Fig. 1: training memory vs training time per epoch, likewise;
- the Bi-BloSAN paper's Fig. 5: validation accuracy vs training time (s), from each run's
  ``curve.csv``;
- the DiSAN paper's accuracy vs sentence length on SST: test accuracy per length bin.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.collections import PathCollection
from matplotlib.markers import MarkerStyle
from matplotlib.ticker import ScalarFormatter

from reports import numbers
from reports.contracts.suite_results import (
    PARTIAL_MARK,
    SCALED_MARK,
    TIME_PER_EPOCH,
    contended,
    partly_scored,
    scaled_epoch_time,
)
from reports.profile.figures import SCALES, set_scale
from reports.site.render import save_figure

# DiSAN discusses the ranges (5, 12), (25, 38) and >= 38 tokens.
LENGTH_EDGES = (-1, 5, 12, 18, 25, 38, np.inf)
LENGTH_LABELS = ("≤5", "6–12", "13–18", "19–25", "26–38", ">38")
# the training results' costs in words, with their unit (their scales: profile.figures.SCALES)
COST_LABELS = {
    "peak_train_mem_mb": "training memory (MB)",
    "dev_infer_time_s": "inference time on dev (s)",
    "train_time_per_epoch_s": "training time per epoch (s)",
}
HOLLOW = "hollow: contended time"  # a point some of whose runs were timed while contended
# a point whose time per epoch some of its runs scaled from a partial epoch, as the tables mark it
SCALED = f"{SCALED_MARK.strip()}: time scaled from a partial epoch"

EFFICIENCY = (
    (
        "mtsa_fig1c",
        "the MTSA paper's Fig. 1(c)",
        ("peak_train_mem_mb", COST_LABELS["peak_train_mem_mb"]),
        ("dev_infer_time_s", COST_LABELS["dev_infer_time_s"]),
    ),
    (
        "bi_blosan_fig1",
        "the Bi-BloSAN paper's Fig. 1",
        ("train_time_per_epoch_s", COST_LABELS["train_time_per_epoch_s"]),
        ("peak_train_mem_mb", COST_LABELS["peak_train_mem_mb"]),
    ),
)
CURVES_PAPER = "the Bi-BloSAN paper's Fig. 5"
LENGTHS_PAPER = "the DiSAN paper's accuracy vs sentence length (SST-1)"
OUTSIDE_RIGHT = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}


# An efficiency axis spans at least this share of its values' size, so that near-equal runs
# (or one run) read their values on the ticks, never as digits below an offset (1e-7+1.36e-2)
LEAST_RELATIVE_SPAN = 0.1
MARGIN = 0.18  # of the span, each side: room for the markers and their labels
LEAST_FACTOR = 2.0  # a log axis spans at least this factor, so its ticks read apart
GAP = 3.0  # points between a marker's edge and the words beside it
# points², every handle of a scatter's legend, which its frame holds whatever its point's size
LEGEND_SIZE = 36.0


def readable_limits(values: pd.Series) -> tuple[float, float]:
    """Axis limits holding ``values``, at least :data:`LEAST_RELATIVE_SPAN` of their mean's size
    wide (1 when that is 0), with :data:`MARGIN` each side."""
    low, high = float(values.min()), float(values.max())
    centre = (low + high) / 2
    least = LEAST_RELATIVE_SPAN * abs(centre) or 1.0
    if high - low < least:
        low, high = centre - least / 2, centre + least / 2
    margin = MARGIN * (high - low)
    return low - margin, high + margin


def readable_log_limits(values: pd.Series) -> tuple[float, float]:
    """Log axis limits holding the positive ``values``: at least :data:`LEAST_FACTOR` apart,
    with :data:`MARGIN` of the span (in decades) each side."""
    decades = np.log10(values[values > 0].astype(float))
    low, high = float(decades.min()), float(decades.max())
    least = np.log10(LEAST_FACTOR)
    if high - low < least:
        centre = (low + high) / 2
        low, high = centre - least / 2, centre + least / 2
    margin = MARGIN * (high - low)
    return 10 ** (low - margin), 10 ** (high + margin)


def marker_reach(marker: str, size: float, linewidth: float) -> float:
    """How far sideways (points) a scatter marker of ``size`` (points²) reaches from its
    centre, its edge of ``linewidth`` included."""
    style = MarkerStyle(marker)
    extents = style.get_path().transformed(style.get_transform()).get_extents()
    return float(np.sqrt(size)) * max(abs(extents.x0), abs(extents.x1)) + linewidth / 2


def quality_column(rows: pd.DataFrame) -> tuple[str, str, float]:
    """The test metric of a task's rows: accuracy in percent, else Pearson's r."""
    if "test_acc" in rows and rows["test_acc"].notna().any():
        return "test_acc", "test accuracy (%)", 100.0
    return "test_pearson", "test Pearson's r", 1.0


def _scatter(
    means: pd.DataFrame,
    x: tuple[str, str],
    y: tuple[str, str],
    quality: tuple[str, str, float],
    style: dict[str, dict[str, object]],
    title: str,
    hollow: frozenset[str] | set[str] = frozenset(),
    scaled: frozenset[str] | set[str] = frozenset(),
) -> plt.Figure:
    """One point per encoder; one of ``hollow`` (a time taken while contended) unfilled, one of
    ``scaled`` (a time per epoch scaled from a partial one) lettered e, as the cost figures draw
    them. A point's label stands beside it towards the middle, its e on the other side, both
    clear of the marker; a legend (of hollow or e) stands beside the axes, as on every page."""
    column, label, scale = quality
    legend = bool(hollow or scaled)
    figure, axes = plt.subplots(figsize=(7.6 if legend else 6.4, 4.6))
    for (name, text), axis in ((x, "x"), (y, "y")):  # memory log, time linear, as everywhere
        log = SCALES[name] == "log"
        limits = readable_log_limits if log else readable_limits
        getattr(axes, f"set_{axis}lim")(*limits(means[name]))
        set_scale(axes, name, text, axis)
        if not log:  # tick labels are the values, in the axis' unit
            getattr(axes, f"{axis}axis").set_major_formatter(ScalarFormatter(useOffset=False))
            axes.ticklabel_format(axis=axis, style="plain")
    values = means[column] * scale
    low, high = values.min(), values.max()
    spread = high - low if high > low else 1.0
    for encoder, row in means.iterrows():
        size = 80 + 520 * ((row[column] * scale - low) / spread if high > low else 0.5)
        width = 2.0 if encoder in hollow else 0.5
        point = (row[x[0]], row[y[0]])
        axes.scatter(
            *point,
            s=size,
            alpha=0.75,
            facecolors="none" if encoder in hollow else style[encoder]["color"],
            marker=style[encoder]["marker"],
            edgecolors=style[encoder]["color"] if encoder in hollow else "black",
            linewidths=width,
            label=encoder,
        )
        text = (
            f"{encoder}\n{row[column] * scale:.1f}"
            if scale != 1
            else f"{encoder}\n{row[column]:.3f}"
        )
        side = GAP + marker_reach(str(style[encoder]["marker"]), size, width)
        across = axes.transAxes.inverted().transform(axes.transData.transform(point))[0]
        towards = -1 if across > 0.5 else 1  # the label towards the middle, never off the axes
        ends = {1: "left", -1: "right"}
        axes.annotate(
            text, point, xytext=(towards * side, 0), textcoords="offset points",
            ha=ends[towards], va="center", fontsize=8,
        )  # fmt: skip
        if encoder in scaled:
            axes.annotate(
                SCALED_MARK.strip(), point, xytext=(-towards * side, 0), textcoords="offset points",
                ha=ends[-towards], va="center", fontsize=9, weight="bold",
            )  # fmt: skip
    if hollow:
        axes.scatter([], [], marker="o", facecolors="none", edgecolors="black", label=HOLLOW)
    if scaled:
        axes.plot([], [], " ", label=SCALED)
    if legend:
        shown = axes.legend(fontsize=8, **OUTSIDE_RIGHT)
        for handle in shown.legend_handles:  # a point's size is its accuracy, not the legend's
            if isinstance(handle, PathCollection):
                handle.set_sizes([LEGEND_SIZE])
    axes.set_title(f"{title}\nmarker size and label: {label}", fontsize=10)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    return figure


def efficiency_figures(
    results: pd.DataFrame, style: dict[str, dict[str, object]], folder: Path
) -> list[dict[str, str]]:
    """Two scatter figures per task with efficiency columns (means over replicates)."""
    written = []
    for task, rows in results.groupby("task", sort=True):
        quality = quality_column(rows)
        for stem, paper, x, y in EFFICIENCY:
            needed = [x[0], y[0], quality[0]]
            if any(c not in rows for c in needed):
                continue
            means = rows.groupby("encoder")[needed].mean().dropna()
            logged = [column for column, _ in (x, y) if SCALES[column] == "log"]
            placed = (means[logged] > 0).all(axis=1)  # a log axis has no place for 0
            if not placed.any():
                continue
            title = f"{task}: {y[1]} vs {x[1]}"
            timed = [contended(rows, column) for column, _ in (x, y)]  # False for memory
            late = rows.loc[pd.concat(timed, axis=1).any(axis=1), "encoder"]
            hollow = set(late) & set(means.index[placed])
            partial = rows.loc[scaled_epoch_time(rows), "encoder"]
            timed_per_epoch = TIME_PER_EPOCH in (x[0], y[0])
            scaled = set(partial) & set(means.index[placed]) if timed_per_epoch else set()
            figure = _scatter(means[placed], x, y, quality, style, title, hollow, scaled)
            caption = f"{title} (as in {paper})"
            if hollow:
                caption += f"; {HOLLOW} ({', '.join(sorted(hollow))}), marked c in the tables"
            if scaled:
                caption += f"; {SCALED} ({', '.join(sorted(scaled))}), marked e in the tables"
            if not placed.all():
                left_out = ", ".join(map(str, means.index[~placed]))
                caption += f"; not drawn, its memory not above 0 on a log axis: {left_out}"
            written.append(save_figure(figure, folder, f"{stem}_{task}", caption))
    return written


def curve_figure(
    task: str, curves: dict[tuple, pd.DataFrame], style: dict[str, dict[str, object]]
) -> plt.Figure | None:
    """The dev metric after each validation vs training seconds, every run of ``task`` drawn
    (None when none validated); the legend beside the axes, never over a curve."""
    figure, axes = plt.subplots(figsize=(7.4, 4.4))
    labelled: set[str] = set()
    ylabel = ""
    for (run_task, encoder, _replicate), curve in sorted(curves.items()):
        if run_task != task or "train_seconds" not in curve:
            continue
        column = "val_acc" if "val_acc" in curve else "val_pearson"
        if column not in curve:
            continue
        scale = 100.0 if column == "val_acc" else 1.0
        ylabel = "validation accuracy (%)" if column == "val_acc" else "validation Pearson's r"
        axes.plot(
            curve["train_seconds"],
            curve[column] * scale,
            label=None if encoder in labelled else encoder,
            markersize=4,
            linewidth=1.2,
            **style[encoder],
        )
        labelled.add(encoder)
    if not labelled:
        plt.close(figure)
        return None
    axes.set_xlabel("training time (s), linear scale")
    axes.set_ylabel(ylabel)
    axes.set_title(f"{task}: {ylabel.split(' (')[0]} vs training time", fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, **OUTSIDE_RIGHT)
    figure.tight_layout()
    return figure


def curve_figures(
    curves: dict[tuple, pd.DataFrame], style: dict[str, dict[str, object]], folder: Path
) -> list[dict[str, str]]:
    """The Bi-BloSAN paper's Fig. 5 per task (:func:`curve_figure`)."""
    written = []
    for task in sorted({key[0] for key in curves}):
        figure = curve_figure(task, curves, style)
        if figure is not None:
            title = f"{task}: validation metric vs training time (as in {CURVES_PAPER})"
            written.append(save_figure(figure, folder, f"bi_blosan_fig5_{task}", title))
    return written


def accuracy_by_length(predictions: dict[tuple, pd.DataFrame]) -> pd.DataFrame:
    """Long form: task, encoder, bin, examples, accuracy (pooled over replicates).

    Single-sentence classification only (no ``length_b``; integer labels)."""
    frames = []
    for (task, encoder, _replicate), rows in predictions.items():
        if "length_b" in rows or not {"length", "label", "prediction"} <= set(rows):
            continue
        if not pd.api.types.is_integer_dtype(rows["label"]):
            continue
        frames.append(rows.assign(task=task, encoder=encoder))
    if not frames:
        return pd.DataFrame(columns=["task", "encoder", "bin", "examples", "accuracy"])
    pooled = pd.concat(frames, ignore_index=True)
    pooled["bin"] = pd.cut(pooled["length"], LENGTH_EDGES, labels=LENGTH_LABELS)
    pooled["correct"] = pooled["label"] == pooled["prediction"]
    grouped = pooled.groupby(["task", "encoder", "bin"], observed=True)["correct"]
    table = grouped.agg(examples="size", accuracy="mean").reset_index()
    table["bin"] = table["bin"].astype(str)
    return table


def coinciding(rows: pd.DataFrame) -> dict[str, str]:
    """Each encoder whose accuracy is an earlier one's (by name) in every bin of ``rows``, and
    that encoder: their lines coincide (every encoder predicting the majority class)."""
    first: dict[tuple, str] = {}
    same = {}
    for encoder, group in rows.groupby("encoder", sort=True):
        key = tuple(zip(group["bin"], group["accuracy"].round(12), strict=True))
        same.update({str(encoder): first[key]} if key in first else {})
        first.setdefault(key, str(encoder))
    return same


def partial_test_shares(results: pd.DataFrame) -> dict[tuple[str, str], str]:
    """The share of the test split (``51%``, or ``40–51%`` over runs) each (task, encoder) some
    of whose runs tested part of it scored, as the tables mark those cells p."""
    partial = results[partly_scored(results, "test_acc")]
    shares = {}
    for (task, encoder), runs in partial.groupby(["task", "encoder"], sort=True):
        scored = pd.to_numeric(runs["test_scored_share"], errors="coerce")
        low, high = numbers.percent(scored.min()), numbers.percent(scored.max())
        share = f"{low}%" if low == high else f"{low}{numbers.RANGE_DASH}{high}%"
        shares[(str(task), str(encoder))] = share
    return shares


def length_label(encoder: str, same: str | None, share: str | None) -> str:
    """An encoder's legend entry: its name, the encoder whose line its coincides with, and
    the share of the test split it scored when that was part of it (the tables' p)."""
    said = [f"same as {same}: one line"] if same else []
    said += [f"{PARTIAL_MARK.strip()}: shortest {share} of test"] if share else []
    return f"{encoder} ({'; '.join(said)})" if said else encoder


def length_figure(
    task: str,
    rows: pd.DataFrame,
    style: dict[str, dict[str, object]],
    partial: Mapping[tuple[str, str], str] | None = None,
) -> plt.Figure:
    """Test accuracy per length bin of ``task``, one line per encoder, the legend beside (an
    encoder whose line coincides with another's says so: :func:`coinciding`; one that scored
    part of the test split says its share, ``partial``: :func:`partial_test_shares`)."""
    positions = {label: i for i, label in enumerate(LENGTH_LABELS)}
    figure, axes = plt.subplots(figsize=(7.4, 4.4))
    same = coinciding(rows)
    shares = partial or {}
    for encoder, group in rows.groupby("encoder", sort=True):
        x = [positions[b] for b in group["bin"]]
        label = length_label(str(encoder), same.get(encoder), shares.get((task, str(encoder))))
        axes.plot(x, group["accuracy"] * 100, label=label, markersize=5, **style[encoder])
    used = sorted({positions[b] for b in rows["bin"]})
    axes.set_xticks(used, [LENGTH_LABELS[i] for i in used])
    axes.set_xlabel("sentence length (tokens)")
    axes.set_ylabel("test accuracy (%)")
    axes.set_title(f"{task}: test accuracy vs sentence length", fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, **OUTSIDE_RIGHT)
    figure.tight_layout()
    return figure


def groupby_first(same: dict[str, str]) -> dict[str, list[str]]:
    """:func:`coinciding`'s encoders under the one each coincides with."""
    groups: dict[str, list[str]] = {}
    for encoder, first in same.items():
        groups.setdefault(first, []).append(encoder)
    return groups


def length_figures(
    table: pd.DataFrame,
    style: dict[str, dict[str, object]],
    folder: Path,
    partial: Mapping[tuple[str, str], str] | None = None,
) -> list[dict[str, str]]:
    """Accuracy vs sentence length, one figure per task (:func:`length_figure`); ``partial``
    (:func:`partial_test_shares`) marks the encoders that scored part of the test split."""
    written = []
    shares = partial or {}
    for task, rows in table.groupby("task", sort=True):
        figure = length_figure(str(task), rows, style, shares)
        title = f"{task}: test accuracy vs sentence length (as in {LENGTHS_PAPER})"
        for first, hidden in groupby_first(coinciding(rows)).items():
            names = ", ".join(hidden[:-1]) + " and " + hidden[-1] if hidden[1:] else hidden[0]
            title += f"; {names} score as {first} in every bin: their lines coincide"
        encoders = sorted(rows["encoder"].astype(str).unique())
        tested = [e for e in encoders if (str(task), e) in shares]
        if tested:
            mark = PARTIAL_MARK.strip()
            title += "".join(
                f"; {mark}: {e} scored on the shortest {shares[(str(task), e)]} of the test split"
                for e in tested
            )
        written.append(save_figure(figure, folder, f"accuracy_by_length_{task}", title))
    return written
