"""Profile runs side by side (e.g. one sweep on two GPUs, or fp32 vs bf16).

Overlaid time/memory-vs-length lines (colour = encoder, line style = run), the ratio of each
run to the first (the baseline; a run that measured nothing is not compared) per encoder and
length, ratio tables (geometric mean over the
lengths both runs measured, and at the longest of them) and growth exponents per run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import ScalarFormatter

from reports.contracts.profile_run import OK, POINT_ORDER, PREDICTED, PROFILE_CSV
from reports.numbers import MISSING
from reports.palette import shaded, styles
from reports.profile.data import LOAD_KEY, ProfileRun, environment, load_run
from reports.profile.figures import (
    METRICS,
    MODE_TITLES,
    contended_legend,
    legend_below,
    legend_below_figure,
    ring_contended,
    set_scale,
)
from reports.profile.growth import NOT_TIMED, growth_table
from reports.site.discover import Run, Skipped
from reports.site.render import Page, render, save_figure

LINESTYLES = ("-", "--", ":", "-.")
# What may differ between runs, and the name a label gives it (none: the value names itself)
LABEL_KEYS = {
    "device_name": "",
    "device": "",
    "dtype": "",
    "batch_size": "batch size",
    "dim": "width",
    "compile": "compile",
    "threads": "threads",
    "cpu_capability": "ISA",
    "torch": "torch",
    "allocator": "",
}
LABEL_LIMIT = 2  # options a label names; runs differing in more are named by their folder
# What makes two runs two machines: their times measure the machines as much as the encoders
# (tensor bytes, the memory ratios, do not depend on them). The threads are a setting of one
# machine, as the batch size is: named by the labels, not called a second machine
MACHINE_KEYS = ("device", "device_name", "cpu_capability", "torch", "cuda")


def differing(envs: list[dict[str, str]], keys: tuple[str, ...]) -> list[str]:
    """The ``keys`` whose recorded values differ between the runs (one not recorded by a run
    does not count: an older run lacks the newer keys)."""
    return [key for key in keys if len({env[key] for env in envs if env.get(key, "") != ""}) > 1]


def labels(envs: list[dict[str, str]], names: list[str]) -> list[str]:
    """Run labels naming what differs between the runs, option and value (``batch size 16``;
    a value that names itself alone: ``bf16``); folder names if nothing does, or if more than
    ``LABEL_LIMIT`` options do (the page lists them)."""
    keys = differing(envs, tuple(LABEL_KEYS))
    if not keys or len(keys) > LABEL_LIMIT:
        return names
    found = [
        ", ".join(f"{LABEL_KEYS[k]} {env.get(k, MISSING)}".strip() for k in keys) for env in envs
    ]
    return (
        found
        if len(set(found)) == len(found)
        else [f"{n} ({f})" for n, f in zip(names, found, strict=True)]
    )


def machine_differences(base: dict[str, str], other: dict[str, str]) -> list[str]:
    """``ISA AVX512 vs AVX2``, one per machine setting the two runs recorded differently, and
    their threads if those differ too; none for one machine at two thread counts."""
    if not differing([base, other], MACHINE_KEYS):
        return []
    return [
        f"{LABEL_KEYS.get(key) or key.replace('_', ' ')} {base[key]} vs {other[key]}"
        for key in differing([base, other], (*MACHINE_KEYS, "threads"))
    ]


def overlay_figure(runs: list[ProfileRun], names: list[str], mode: str, metric: str) -> plt.Figure:
    """Every run's measured points of ``metric``, a time taken while contended ringed in black as
    on the profile page; the legend names every encoder of any run (colour and marker, a
    variant in a darker shade of its encoder's), every run (line style) and the rings."""
    style = shaded(styles(list(set().union(*(set(r.rows["label"]) for r in runs)))))
    figure, axes = plt.subplots(figsize=(6.8, 5.8))
    drawn: set[str] = set()
    ringed = False
    for index, run in enumerate(runs):
        ok = run.rows[(run.rows["mode"] == mode) & (run.rows["status"] == OK)]
        for encoder, group in ok.groupby("label"):
            group = group.sort_values("seq_len")
            axes.plot(
                group["seq_len"],
                group[metric],
                linestyle=LINESTYLES[index % len(LINESTYLES)],
                markersize=4,
                **style[encoder],
            )
            drawn.add(encoder)
            if METRICS[metric][1] == "time":  # a memory (tensor bytes) is not a timing
                contended = group[group["contended"]]
                ringed |= ring_contended(axes, contended["seq_len"], contended[metric])
    for encoder, look in style.items():
        if encoder in drawn:
            axes.plot([], [], label=encoder, **look)
    for index, name in enumerate(names):
        axes.plot([], [], "k", linestyle=LINESTYLES[index % len(LINESTYLES)], label=name)
    if ringed:
        contended_legend(axes)
    axes.set_xlabel("sequence length")
    set_scale(axes, metric)
    axes.set_title(f"{METRICS[metric][0]}, {MODE_TITLES.get(mode, mode)}", fontsize=10)
    axes.grid(alpha=0.3)
    legend_below(axes)
    figure.tight_layout()
    return figure


def ratios(base: pd.DataFrame, other: pd.DataFrame) -> pd.DataFrame:
    """other / base per (encoder, mode, seq_len) both measured: time_ratio, memory_ratio, and
    ``contended`` where either point's timing was."""
    key = POINT_ORDER
    cols = ["time_ms_median", "peak_mem_mb", "contended"]
    left = base[base["status"] == OK][key + cols]
    right = other[other["status"] == OK][key + cols]
    both = left.merge(right, on=key, suffixes=("_base", "_other"))
    both = both.rename(columns={"label": "encoder"})
    key = ["encoder", "mode", "seq_len"]
    with np.errstate(divide="ignore", invalid="ignore"):
        both["time_ratio"] = both["time_ms_median_other"] / both["time_ms_median_base"]
        both["memory_ratio"] = both["peak_mem_mb_other"] / both["peak_mem_mb_base"]
    flags = [both[f"contended_{side}"].fillna(False).astype(bool) for side in ("base", "other")]
    both["contended"] = flags[0] | flags[1]
    table = both[[*key, "time_ratio", "memory_ratio", "contended"]]
    return table.replace([np.inf, -np.inf], np.nan)


def only_in(base: pd.DataFrame, other: pd.DataFrame, names: list[str]) -> list[str]:
    """``bilstm (only in NAME)`` for each encoder that one of the two runs (``names``: base,
    other) measured and the other did not: :func:`ratios` has no row for it."""
    measured = [set(rows[rows["status"] == OK]["label"]) for rows in (base, other)]
    return [
        f"{encoder} (only in {name})"
        for mine, theirs, name in zip(measured, measured[::-1], names, strict=True)
        for encoder in sorted(mine - theirs)
    ]


def _geomean(values: pd.Series) -> float:
    values = values[values > 0].dropna()
    return float(np.exp(np.log(values).mean())) if not values.empty else float("nan")


def ratio_summary(table: pd.DataFrame) -> list[dict[str, object]]:
    records = []
    for (encoder, mode), group in table.groupby(["encoder", "mode"], sort=True):
        last = group.sort_values("seq_len").iloc[-1]
        records.append(
            {
                "encoder": encoder,
                "mode": mode,
                "lengths": len(group),
                "time_geomean": _geomean(group["time_ratio"]),
                "memory_geomean": _geomean(group["memory_ratio"]),
                "longest": int(last["seq_len"]),
                "time_longest": last["time_ratio"],
                "memory_longest": last["memory_ratio"],
                "contended": int(group["contended"].sum()),
                "contended_longest": bool(last["contended"]),
            }
        )
    return records


# A ratio axis spans at least this much either side of 1, so equal runs read 1.00 on ticks of
# a few hundredths, never as a tenfold spread of digits below an offset
LEAST_RATIO_SPAN = 0.05


def ratio_limits(values: pd.Series) -> tuple[float, float]:
    """Axis limits that hold 1 and every ratio, at least ``LEAST_RATIO_SPAN`` from 1 each way,
    with a margin."""
    finite = values[np.isfinite(values)]
    low = min([1.0 - LEAST_RATIO_SPAN, *finite])
    high = max([1.0 + LEAST_RATIO_SPAN, *finite])
    margin = 0.05 * (high - low)
    return low - margin, high + margin


def ratio_figure(table: pd.DataFrame, mode: str, title: str, cross_machine: bool) -> plt.Figure:
    """Time and memory ratio vs length, one line per encoder, a time ratio of a contended
    point ringed in black; tick labels are the ratios themselves (no offset, no scientific
    notation)."""
    style = styles(list(table["encoder"].unique()))
    figure, axes = plt.subplots(1, 2, figsize=(10, 5.0), sharex=True)
    chosen = table[table["mode"] == mode]
    time_label = "time ratio (cross-machine)" if cross_machine else "time ratio"
    for ax, (column, label) in zip(
        axes, (("time_ratio", time_label), ("memory_ratio", "memory ratio")), strict=True
    ):
        for encoder, look in style.items():
            group = chosen[chosen["encoder"] == encoder].sort_values("seq_len")
            if not group.empty:
                ax.plot(group["seq_len"], group[column], label=encoder, markersize=4, **look)
        if column == "time_ratio":  # as the tables: a time either run took while starved
            contended = chosen[chosen["contended"].astype(bool)]
            if ring_contended(ax, contended["seq_len"], contended[column]):
                contended_legend(axes[0])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylim(*ratio_limits(chosen[column].astype(float)))
        ax.yaxis.set_major_formatter(ScalarFormatter(useOffset=False))
        ax.ticklabel_format(axis="y", style="plain")
        ax.set_xlabel("sequence length")
        ax.set_ylabel(f"{label}, linear scale")
        ax.grid(alpha=0.3)
    figure.suptitle(f"{title}, {MODE_TITLES.get(mode, mode)}", fontsize=10)
    legend_below_figure(figure, axes[0])
    return figure


def measured_nothing(profile: ProfileRun) -> str:
    """Why a profile run has no point to compare ("" when it measured one): a predict-only
    run, or one whose every point failed, ran out of memory or was refused as contended."""
    counts = profile.rows["status"].value_counts()
    if OK in counts:
        return ""
    if set(counts.index) <= {PREDICTED}:
        return "a --predict-only run, which measured nothing; its page shows the predictions"
    statuses = ", ".join(f"{count} {status}" for status, count in counts.items())
    return f"no point measured in full; its {PROFILE_CSV} rows: {statuses}"


def comparable(runs: list[Run]) -> tuple[list[Run], list[Skipped]]:
    """The profile runs a comparison holds, in the order given (the first is the baseline), and
    those it leaves out with the reason: a run that measured nothing has no ratio to any other
    (as a baseline, every ratio table would be a bare header)."""
    reasons = [measured_nothing(load_run(run.folder)) for run in runs]
    compared = [run for run, reason in zip(runs, reasons, strict=True) if not reason]
    return compared, [
        Skipped(str(run.folder), reason)
        for run, reason in zip(runs, reasons, strict=True)
        if reason
    ]


def build(runs: list[Run], page_dir: Path, slug: str, not_compared: Sequence[Skipped] = ()) -> Page:
    """The comparison of ``runs`` (each measured something: :func:`comparable`), the first the
    baseline; its lead names the ``not_compared`` runs and why."""
    loaded = [load_run(run.folder) for run in runs]
    envs = [environment(p) for p in loaded]
    names = labels(envs, [run.name for run in runs])
    modes = [m for m in MODE_TITLES if any(m in set(p.rows["mode"]) for p in loaded)]
    figures = []
    for mode in modes:
        for metric, (_, short) in METRICS.items():
            figure = overlay_figure(loaded, names, mode, metric)
            title = f"{short.capitalize()} vs length, {MODE_TITLES[mode]}: all runs"
            figures.append(save_figure(figure, page_dir, f"overlay_{short}_{mode}", title))
    comparisons = []
    for index in range(1, len(loaded)):
        table = ratios(loaded[0].rows, loaded[index].rows)
        title = f"{names[index]} / {names[0]}"
        machines = machine_differences(envs[0], envs[index])
        ratio_figures = []
        for mode in sorted(set(table["mode"])):
            figure = ratio_figure(table, mode, title, bool(machines))
            stem = f"ratio_{index}_{mode}"
            ratio_figures.append(save_figure(figure, page_dir, stem, f"Ratio {title}, {mode}"))
        comparisons.append(
            {
                "title": title,
                "rows": ratio_summary(table),
                "figures": ratio_figures,
                "evidence": [runs[0].slug, runs[index].slug],
                "cross_machine": machines,
                "only_in": only_in(loaded[0].rows, loaded[index].rows, [names[0], names[index]]),
            }
        )
    growth = {}
    for name, profile in zip(names, loaded, strict=True):
        for row in growth_table(profile.rows).to_dict("records"):
            growth.setdefault((row["encoder"], row["mode"]), {})[name] = row
    keys = sorted(set().union(*envs))
    # one list for the table and the lead: a key one run did not record differs too
    shown = [key for key in keys if len({env.get(key, "") for env in envs}) > 1]
    merged = {}
    for key in keys:
        values = [env.get(key, "") for env in envs]
        merged[key] = (
            " | ".join(f"{n}: {v or MISSING}" for n, v in zip(names, values, strict=True))
            if key in shown
            else values[0]
        )
    command = "\n".join(
        f"# {name}\n{run.manifest.get('command') or 'not recorded'}"
        for name, run in zip(names, runs, strict=True)
    )
    options = differing(envs, tuple(LABEL_KEYS))
    settings = [key for key in shown if key not in {*options, LOAD_KEY}]
    title = "Comparison: " + " vs ".join(names)
    if len(options) == 1 and LABEL_KEYS[options[0]]:  # "batch size 8 vs 16"
        title = f"Comparison: {LABEL_KEYS[options[0]]} " + " vs ".join(
            env.get(options[0], "") for env in envs
        )
    render(
        "compare.html.j2",
        page_dir / "index.html",
        title=title,
        root="../",
        environment=merged,
        command=command,
        runs=[
            {"name": n, "slug": r.slug, "source": str(r.folder)}
            for n, r in zip(names, runs, strict=True)
        ],
        figures=figures,
        comparisons=comparisons,
        names=names,
        not_compared=not_compared,
        differences=[
            {
                "option": LABEL_KEYS.get(k) or k.replace("_", " "),
                "values": [e.get(k) or MISSING for e in envs],
            }
            for k in [*options, *settings]  # the labels' options, then commit, python, ...
        ],
        growth=[{"encoder": k[0], "mode": k[1], "runs": v} for k, v in sorted(growth.items())],
        not_timed=NOT_TIMED,
        files=[],
    )
    return Page(
        slug,
        "comparison",
        title,
        ", ".join(str(r.folder) for r in runs),
        {"runs": " vs ".join(names), "baseline": names[0]},
    )
