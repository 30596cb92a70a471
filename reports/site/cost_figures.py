"""Accuracy against cost, as a picture of the papers' Table 1 (Bi-BloSAN, MTSA): per task, the
test metric (mean and its 95% Student-t interval over seeds or folds) against training time per
epoch (linear axis) and against training memory (log axis), one point per encoder in its
palette colour and marker.

The Pareto front is marked (:data:`FRONT_RULE`, the words the page gives): an encoder is off it
when another is at least as accurate and at most as costly, and better in one of the two. A
time some of whose runs were contended (their threads got less than half the CPU they asked
for) is drawn hollow: it is inflated, and so may be its place off the front.
Where a profile run is in the same report and measured (or predicted) every encoder of the task
in training, in the dtype the suite trained in, its tensor memory at the task's mean
test-sentence length stands in for the suite's peak (a clean, comparable quantity: one training
step on synthetic input, the profile's batch and width); the figure's caption says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from reports import aggregation
from reports.contracts.profile_run import MEASURED_STATUSES
from reports.contracts.suite_results import SCALED_MARK, contended, scaled_epoch_time
from reports.numbers import RANGE_DASH
from reports.profile.figures import plain_log_axis
from reports.site.render import save_figure
from reports.site.training_figures import OUTSIDE_RIGHT, quality_column

TIME = ("train_time_per_epoch_s", "training time per epoch (s), linear scale")
MEMORY = ("peak_train_mem_mb", "training memory (MB), log scale")
BAR_ALPHA = 0.6  # an interval's bar, see-through where another's crosses it
# who is on the front, as the suite page and docs/reports.md say it (:func:`pareto_front`)
FRONT_RULE = (
    "no other encoder is at least as accurate and at most as costly, and better in one of the "
    "two (of equally accurate encoders only the cheapest is on the front, of equally costly "
    "ones only the most accurate)"
)


@dataclass(frozen=True)
class Point:
    """One encoder of one task: its test metric over runs and its costs."""

    encoder: str
    runs: int
    quality: float
    interval: float  # half-width of the 95% interval; NaN for a single run
    time_s: float
    memory_mb: float
    contended: bool  # some run's training epochs were contended: the time is inflated
    scaled: bool = False  # some run trained no whole epoch: its time is scaled from batches


@dataclass(frozen=True)
class StandIn:
    """Training memory of every encoder of a task from a profile run in the same report."""

    profile: str
    seq_len: int
    mean_length: float
    batch_size: str
    dim: str
    memory_mb: dict[str, float]
    basis: str  # "measured", "predicted" or "measured and predicted"


def pareto_front(cost: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """Whether each point is on the front (:data:`FRONT_RULE`): no other point costs at most as
    much and is at least as accurate, and is better in one of the two (NaN points are never on
    it; two points alike in both are both on it)."""
    on = np.zeros(len(cost), dtype=bool)
    for i in range(len(cost)):
        if np.isnan(cost[i]) or np.isnan(quality[i]):
            continue
        others = np.delete(np.arange(len(cost)), i)
        dominated = any(
            cost[j] <= cost[i]
            and quality[j] >= quality[i]
            and (cost[j] < cost[i] or quality[j] > quality[i])
            for j in others
            if not (np.isnan(cost[j]) or np.isnan(quality[j]))
        )
        on[i] = not dominated
    return on


def task_points(rows: pd.DataFrame, quality: tuple[str, str, float]) -> list[Point]:
    """One :class:`Point` per encoder of one task's finished runs."""
    column, _, scale = quality
    points = []
    for encoder, group in rows.groupby("encoder", sort=True):
        stats = aggregation.mean_std(group[column], scale)
        if not stats.n:
            continue

        def mean(name: str, group: pd.DataFrame = group) -> float:
            return aggregation.mean_std(group[name]).mean if name in group else math.nan

        points.append(
            Point(
                str(encoder),
                stats.n,
                stats.mean,
                aggregation.half_interval(stats),
                mean(TIME[0]),
                mean(MEMORY[0]),
                bool(contended(group, TIME[0]).any()),
                bool(scaled_epoch_time(group).any()),
            )
        )
    return points


def mean_length(predictions: dict[tuple, pd.DataFrame], task: str) -> float | None:
    """The mean test-sentence length (tokens) of ``task``, both sentences of a pair counted."""
    lengths = [
        frame[column]
        for (run_task, _, _), frame in predictions.items()
        if run_task == task
        for column in ("length", "length_b")
        if column in frame
    ]
    if not lengths:
        return None
    values = pd.to_numeric(pd.concat(lengths), errors="coerce").dropna()
    return float(values.mean()) if len(values) else None


def profile_dtype(precision: str) -> str:
    """The profile ``--dtype`` a Lightning precision trains in (``bf16-mixed``: bf16,
    ``16-mixed``: fp16, ``64-true``: fp64, which no profile runs; ``32-true`` or unrecorded: fp32;
    a page's ``precision 16-mixed`` too)."""
    words = precision.split()
    value = words[-1] if words else ""
    if "bf16" in value:
        return "bf16"
    return {"16": "fp16", "64": "fp64"}.get(value.split("-")[0], "fp32")


def stand_in(
    profiles: list[tuple[str, pd.DataFrame]],
    encoders: list[str],
    length: float | None,
    dtype: str = "fp32",
) -> StandIn | None:
    """The first profile whose training rows in ``dtype`` cover every encoder (as run, no
    options) at one length: the profiled length nearest the mean sentence length (the longer
    on a tie)."""
    if length is None:
        return None
    for name, rows in profiles:
        chosen = (rows["mode"] == "train") & rows["label"].isin(encoders)
        train = rows[chosen & (rows["dtype"] == dtype)].copy()
        measured = train["status"].isin(MEASURED_STATUSES) & train["peak_mem_mb"].notna()
        train["memory"] = train["peak_mem_mb"].where(measured, train["peak_mem_mb_predicted"])
        train["basis"] = np.where(measured, "measured", "predicted")
        train = train.dropna(subset=["memory"])
        complete = train.groupby("seq_len")["label"].nunique() == len(set(encoders))
        lengths = np.array(sorted(complete.index[complete]), dtype=float)
        if not len(lengths):
            continue
        distance = np.abs(lengths - length)
        seq_len = int(lengths[distance == distance.min()].max())
        chosen = train[train["seq_len"] == seq_len].drop_duplicates("label")
        bases = sorted(set(chosen["basis"]))
        return StandIn(
            name,
            seq_len,
            length,
            ", ".join(sorted(set(chosen["batch_size"].astype(str)))),
            ", ".join(sorted(set(chosen["dim"].astype(str)))),
            dict(zip(chosen["label"], chosen["memory"].astype(float), strict=True)),
            " and ".join(bases),
        )
    return None


def _why_no_stand_in(
    profiles: list[tuple[str, pd.DataFrame]], encoders: list[str], dtype: str
) -> str:
    """Why the report's profile runs do not lend their memory, in words ("" without any)."""
    reasons = []
    for name, rows in profiles:
        trained = set(rows.loc[rows["mode"] == "train", "label"])
        missing = sorted(encoder for encoder in encoders if encoder not in trained)
        if dtype not in set(rows["dtype"]):
            why = f"was profiled in {', '.join(sorted(set(rows['dtype'])))}, not {dtype}"
        elif missing:
            why = (
                f"did not profile training of {' or '.join(missing)} (as the suite runs "
                "them, without encoder options)"
            )
        else:
            why = "profiled them at no common length, or the test sentences' lengths are unknown"
        reasons.append((name, why))
    if len(reasons) == 1:
        ((name, why),) = reasons
        return f"; the profile {name} cannot stand in for it: it {why}"
    said = "; ".join(f"{name} {why}" for name, why in reasons)
    return f"; no profile can stand in for it: {said}" if reasons else ""


def bar(point: Point, bounds: tuple[float, float]) -> list[list[float]] | None:
    """The interval's lower and upper extent, cut at the metric's bounds (an accuracy is never
    below 0% nor above 100%); None for a single run."""
    if math.isnan(point.interval) or point.interval == 0:
        return None
    low, high = bounds
    return [
        [min(point.interval, point.quality - low)],
        [min(point.interval, high - point.quality)],
    ]


def cut(point: Point, bounds: tuple[float, float]) -> list[float]:
    """The bounds at which :func:`bar` cut ``point``'s interval (none: not cut)."""
    low, high = bounds
    if math.isnan(point.interval):
        return []
    return [
        bound
        for bound, beyond in (
            (low, point.quality - point.interval < low),
            (high, point.quality + point.interval > high),
        )
        if beyond
    ]


def spread_words(points: list[Point], bounds: tuple[float, float]) -> str:
    """What the bars of a cost figure show, in the caption's words: over how many runs, which
    encoders have none (one run, or runs that all scored the same) and where a bar was cut."""
    runs = sorted({p.runs for p in points})
    if runs == [1]:
        return "one run each: no interval"
    over = f"{RANGE_DASH.join(map(str, sorted({runs[0], runs[-1]})))} runs each"
    single = [p.encoder for p in points if p.runs == 1]
    alike = [p.encoder for p in points if p.runs > 1 and p.interval == 0]
    if len(alike) == len(points):
        return f"over {over}, no spread (every run of each encoder scored the same): no bars"
    words = f"bars: 95% interval over {over}"
    cuts = sorted({bound for p in points for bound in cut(p, bounds)})
    if cuts:
        words += f", cut at {' and '.join(f'{bound:g}' for bound in cuts)}"
    if alike:
        words += f"; none for {', '.join(alike)}: no spread (its runs scored the same)"
    if single:
        words += f"; none for {', '.join(single)}: one run"
    return words


def _panel(
    axes: plt.Axes,
    points: list[Point],
    costs: list[float],
    style: dict[str, dict[str, object]],
    hollow: list[bool],
    bounds: tuple[float, float],
) -> None:
    cost = np.array(costs, dtype=float)
    quality = np.array([p.quality for p in points])
    front = pareto_front(cost, quality)
    # the widest interval drawn first, each see-through, every marker above every bar: two
    # encoders at one cost (bilstm and mtsa at 30 MB) both show their intervals
    widest = sorted(range(len(points)), key=lambda i: -np.nan_to_num(points[i].interval))
    for rank, i in enumerate(widest):
        point, x, empty = points[i], cost[i], hollow[i]
        if np.isnan(x):
            continue
        look = style[point.encoder]
        axes.errorbar(x, point.quality, yerr=bar(point, bounds), fmt="none",
                      ecolor=look["color"], elinewidth=1.5, capsize=4, alpha=BAR_ALPHA,
                      zorder=2 + rank / len(points))  # fmt: skip
        axes.plot(x, point.quality, linestyle="none", color=look["color"],
                  marker=look["marker"], markersize=9, markeredgewidth=1.5,
                  markerfacecolor="none" if empty else look["color"], zorder=3)  # fmt: skip
        if front[i]:
            axes.plot(x, point.quality, "o", color="black", markersize=17, fillstyle="none")
    order = np.argsort(cost[front])
    axes.plot(cost[front][order], quality[front][order], "k--", linewidth=0.9, alpha=0.6)
    axes.grid(alpha=0.3)


def _scaled_marks(axes: plt.Axes, points: list[Point]) -> None:
    """The e beside each scaled time, on the side of its point toward the panel's middle: at
    the x limit it would stand past the frame."""
    low, high = axes.get_xlim()
    for point in points:
        if point.scaled and not math.isnan(point.time_s):
            inner = -1 if point.time_s > (low + high) / 2 else 1
            axes.annotate(SCALED_MARK.strip(), (point.time_s, point.quality),
                          xytext=(7 * inner, 5), textcoords="offset points", fontsize=9,
                          weight="bold", ha="left" if inner > 0 else "right")  # fmt: skip


def cost_figure(
    task: str,
    points: list[Point],
    quality_label: str,
    style: dict[str, dict[str, object]],
    memory: StandIn | None,
    bounds: tuple[float, float] = (0.0, 100.0),
) -> plt.Figure:
    """Two panels sharing the test metric (within ``bounds``): against time per epoch and
    against memory."""
    figure, (by_time, by_memory) = plt.subplots(1, 2, figsize=(11.5, 4.6), sharey=True)
    hollow = [p.contended for p in points]
    _panel(by_time, points, [p.time_s for p in points], style, hollow, bounds)
    _scaled_marks(by_time, points)
    memories = [
        memory.memory_mb.get(p.encoder, math.nan) if memory else p.memory_mb for p in points
    ]
    _panel(by_memory, points, memories, style, [False] * len(points), bounds)
    by_time.set_xlabel(TIME[1])
    by_memory.set_xscale("log")
    drawn = [m for m in memories if m > 0]
    if drawn:
        plain_log_axis(by_memory.xaxis, min(drawn), max(drawn))
    memory_label = (
        f"{MEMORY[1]}\n{memory.basis} by {memory.profile} at L = {memory.seq_len}, "
        f"batch {memory.batch_size}"
        if memory
        else MEMORY[1]
    )
    by_memory.set_xlabel(memory_label)
    intervals = any(bar(p, bounds) is not None for p in points)
    by_time.set_ylabel(f"{quality_label}, mean and 95% interval" if intervals else quality_label)
    for encoder in [p.encoder for p in points]:
        by_memory.plot([], [], linestyle="none", markersize=8, label=encoder, **style[encoder])
    by_memory.plot(
        [], [], "o", color="black", markersize=12, fillstyle="none", label="Pareto front"
    )
    if any(hollow):
        by_memory.plot(
            [], [], "o", color="black", markerfacecolor="none", label="hollow: contended time"
        )
    if any(p.scaled for p in points):
        scaled = f"{SCALED_MARK.strip()}: time scaled from a partial epoch"
        by_memory.plot([], [], " ", label=scaled)
    by_memory.legend(fontsize=8, **OUTSIDE_RIGHT)
    figure.suptitle(f"{task}: {quality_label} vs training time and memory", fontsize=10)
    figure.tight_layout()
    return figure


def cost_figures(
    results: pd.DataFrame,
    predictions: dict[tuple, pd.DataFrame],
    profiles: list[tuple[str, pd.DataFrame]],
    style: dict[str, dict[str, object]],
    folder: Path,
    precision: str = "",
) -> list[dict[str, str]]:
    """One figure per task with two or more encoders that recorded a test metric and costs;
    ``precision`` (Lightning's) picks the profiles' dtype that may stand in for memory."""
    dtype = profile_dtype(precision)
    written = []
    for task, rows in results.groupby("task", sort=True):
        quality = quality_column(rows)
        if quality[0] not in rows or TIME[0] not in rows:
            continue
        points = task_points(rows, quality)
        if len(points) < 2:
            continue
        encoders = [p.encoder for p in points]
        memory = stand_in(profiles, encoders, mean_length(predictions, task), dtype)
        bounds = (0.0, 100.0) if quality[2] == 100.0 else (-1.0, 1.0)
        figure = cost_figure(str(task), points, quality[1], style, memory, bounds)
        spread = spread_words(points, bounds)
        caption = f"{task}: {quality[1]} (mean; {spread}) vs training time per epoch and memory"
        if memory:
            caption += (
                f"; memory from the profile {memory.profile} at L = {memory.seq_len} (the "
                f"profiled length nearest the test sentences' mean, {memory.mean_length:.1f} "
                f"tokens), batch {memory.batch_size}, width {memory.dim}, {memory.basis}"
            )
        else:
            caption += "; memory: the mean of its runs' peaks during training"
            caption += _why_no_stand_in(profiles, encoders, dtype)
        written.append(save_figure(figure, folder, f"accuracy_cost_{task}", caption))
    return written
