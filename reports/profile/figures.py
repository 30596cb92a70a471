"""Figures in the papers' style: a metric vs sequence length, one line per encoder variant.

Bi-BloSAN Fig. 6 (a) inference time, (b) memory; MTSA Fig. 1 (a) memory, (b) time. Every
encoder keeps its colour and marker in all figures. Memory: measured points are filled and joined
by solid lines, memory predicted on meta tensors is dashed with hollow markers, so the memory
figures span the predicted lengths (the papers' 16..384) even where nothing was measured. Time:
the median with error bars over the interquartile range; a point whose IQR exceeds a quarter of
its median (``noisy``) is hollow. An ``x`` at the first length that ran out of memory, drawn at
the height of the encoder's last measured value, ends its line.
"""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

# Fixed order first so that the papers' encoders look the same in every report.
KNOWN_ORDER = (
    "bilstm",
    "bigru",
    "bisru",
    "multi_cnn",
    "hrchy_cnn",
    "multi_head",
    "disan",
    "bi_blosan",
    "mtsa",
    "mpsan",
)
# Distinct hues, no light/dark pairs: tab10, then the dark qualitative set.
COLOURS = (*plt.get_cmap("tab10").colors, *plt.get_cmap("Dark2").colors)
MARKERS = ("o", "s", "^", "v", "D", "P", "*", "X", "h", "<", ">", "p", "d", "8")
METRICS = {
    "time_ms_median": ("time per step (ms)", "time"),
    "peak_mem_mb": ("peak memory (MB)", "memory"),
}
MODE_TITLES = {"infer": "inference", "train": "training (forward + backward)"}
# A memory axis turns logarithmic when the largest value exceeds the smallest by this factor.
LOG_SPREAD = 30.0


def styles(labels: list[str]) -> dict[str, dict[str, object]]:
    """Colour and marker per encoder variant, stable across figures and reports."""

    def order(label: str) -> tuple[int, str]:
        base = label.split(":")[0]
        rank = KNOWN_ORDER.index(base) if base in KNOWN_ORDER else len(KNOWN_ORDER)
        return rank, label

    ordered = sorted(set(labels), key=order)
    return {
        label: {"color": COLOURS[i % len(COLOURS)], "marker": MARKERS[i % len(MARKERS)]}
        for i, label in enumerate(ordered)
    }


def _title(axes: plt.Axes, rows: pd.DataFrame, mode: str) -> None:
    first = rows.iloc[0] if not rows.empty else None
    shape = f"batch {first['batch_size']}, dim {first['dim']}, " if first is not None else ""
    device = f"{first['device']} {first['dtype']}" if first is not None else ""
    axes.set_title(f"{MODE_TITLES.get(mode, mode)}: {shape}{device}", fontsize=10)
    axes.set_xlabel("sequence length")
    axes.grid(alpha=0.3)


def _mark_oom(axes: plt.Axes, group: pd.DataFrame, column: str, colour: object) -> bool:
    ok = group[group["status"] == "ok"]
    oom = group[group["status"] == "oom"]
    if oom.empty or ok.empty:
        return False
    axes.plot(
        oom["seq_len"].min(),
        ok[column].iloc[-1],
        marker="x",
        markersize=10,
        markeredgewidth=2.5,
        color=colour,
        linestyle="none",
    )
    return True


def memory_figure(rows: pd.DataFrame, mode: str, style: dict[str, dict[str, object]]) -> plt.Figure:
    figure, axes = plt.subplots(figsize=(6.8, 4.6))
    chosen = rows[rows["mode"] == mode]
    oom_marked = False
    for label, look in style.items():
        group = chosen[chosen["label"] == label].sort_values("seq_len")
        if group.empty:
            continue
        ok = group[group["status"] == "ok"]
        colour, marker = look["color"], look["marker"]
        axes.plot(ok["seq_len"], ok["peak_mem_mb"], color=colour, marker=marker, markersize=4)
        predicted = group.dropna(subset=["peak_mem_mb_predicted"])
        axes.plot(
            predicted["seq_len"],
            predicted["peak_mem_mb_predicted"],
            color=colour,
            marker=marker,
            markersize=4,
            markerfacecolor="none",
            linestyle="--",
            linewidth=1,
        )
        axes.plot([], [], color=colour, marker=marker, label=label)
        oom_marked |= _mark_oom(axes, group, "peak_mem_mb", colour)
    _title(axes, chosen, mode)
    values = pd.concat([chosen["peak_mem_mb"], chosen["peak_mem_mb_predicted"]]).dropna()
    values = values[values > 0]
    if not values.empty and values.max() > LOG_SPREAD * values.min():
        axes.set_yscale("log")
    axes.set_ylabel(
        METRICS["peak_mem_mb"][0] + (", log scale" if axes.get_yscale() == "log" else "")
    )
    axes.plot([], [], "k-", label="measured")
    axes.plot([], [], "k--", marker="o", markerfacecolor="none", label="predicted (meta tensors)")
    if oom_marked:
        axes.plot([], [], "kx", markersize=8, label="out of memory")
    axes.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    return figure


def time_figure(rows: pd.DataFrame, mode: str, style: dict[str, dict[str, object]]) -> plt.Figure:
    figure, axes = plt.subplots(figsize=(6.8, 4.6))
    chosen = rows[rows["mode"] == mode]
    oom_marked = noisy_drawn = False
    for label, look in style.items():
        group = chosen[chosen["label"] == label].sort_values("seq_len")
        ok = group[group["status"] == "ok"]
        if ok.empty:
            continue
        colour, marker = look["color"], look["marker"]
        axes.errorbar(
            ok["seq_len"],
            ok["time_ms_median"],
            yerr=ok["time_ms_iqr"].fillna(0) / 2,
            color=colour,
            marker=marker,
            markersize=4,
            capsize=2,
            label=label,
        )
        noisy = ok[ok["noisy"]]
        if not noisy.empty:
            axes.plot(
                noisy["seq_len"],
                noisy["time_ms_median"],
                linestyle="none",
                marker=marker,
                markersize=7,
                markerfacecolor="white",
                color=colour,
            )
            noisy_drawn = True
        oom_marked |= _mark_oom(axes, group, "time_ms_median", colour)
    _title(axes, chosen, mode)
    axes.set_ylabel(METRICS["time_ms_median"][0] + ", median ± IQR/2")
    if noisy_drawn:
        axes.plot([], [], "ko", markerfacecolor="white", label="noisy: IQR > 25% of median")
    if oom_marked:
        axes.plot([], [], "kx", markersize=8, label="out of memory")
    axes.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    return figure


def figures(rows: pd.DataFrame) -> Iterator[tuple[str, str, plt.Figure]]:
    """(file stem, title, figure) per mode: memory, then time when anything was timed."""
    style = styles(list(rows["label"].unique()))
    for mode in [m for m in MODE_TITLES if m in set(rows["mode"])]:
        title = MODE_TITLES[mode]
        yield f"memory_{mode}", f"Peak memory vs length, {title}", memory_figure(rows, mode, style)
        if (rows[rows["mode"] == mode]["status"] == "ok").any():
            yield f"time_{mode}", f"Time vs length, {title}", time_figure(rows, mode, style)
