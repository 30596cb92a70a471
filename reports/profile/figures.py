"""Figures in the papers' style: a metric vs sequence length, one line per encoder variant.

Bi-BloSAN Fig. 6 (a) inference time, (b) memory; MTSA Fig. 1 (a) memory, (b) time. Every
encoder keeps its colour and marker in all figures and reports (``reports.palette``); memory is
always on a log axis, time on a linear one, and each axis says so. Memory: measured points are
filled and joined by solid lines, memory predicted on meta tensors is dashed with hollow
markers, so the memory figures span the predicted lengths (the papers' 16..384) even where
nothing was measured. Time: the median with error bars of ± half the interquartile range, cut
at zero; a point whose IQR exceeds a quarter of its median (``noisy``) is hollow, and a point
the sweep flagged ``contended`` (its threads did not get the CPU they asked for while timed) is
ringed in black. An ``x`` at the first length that ran out of memory, drawn at the height of the
encoder's last measured value, ends its line. Legends sit under the axes, off the data.
"""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axis import Axis
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from reports.contracts.profile_run import OK, OOM
from reports.palette import styles

METRICS = {
    "time_ms_median": ("time per step (ms)", "time"),
    "peak_mem_mb": ("peak memory (MB)", "memory"),
}
MODE_TITLES = {"infer": "inference", "train": "training (forward + backward)"}
# One axis scale per quantity on every figure of every report: memory spans orders of magnitude
# over the papers' lengths (DiSAN's grows as L^2), time is drawn linear as in the papers' Fig. 6.
SCALES = {
    "time_ms_median": "linear",
    "peak_mem_mb": "log",
    # the training results' costs (the fit and suite pages' efficiency figures)
    "peak_train_mem_mb": "log",
    "train_time_per_epoch_s": "linear",
    "dev_infer_time_s": "linear",
}


def legend_below(axes: plt.Axes, columns: int = 3) -> None:
    """The legend under the axes (beneath the x label), never over a line or a point."""
    axes.legend(
        fontsize=7, ncol=columns, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False
    )


def legend_below_figure(figure: plt.Figure, axes: plt.Axes, columns: int = 5) -> None:
    """The legend of ``axes``' entries under the whole figure, centred on it (under one panel of
    two, a wide legend ran off the figure's left edge), with room kept for it."""
    handles, labels = axes.get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=7, ncol=columns, loc="lower center", frameon=False)
    rows = -(-len(labels) // columns)
    figure.tight_layout(rect=(0, 0.035 * rows + 0.01, 1, 1))


LABEL_PRECISION = 1e-3  # a tick's label is within this fraction of the tick's value


def plain_number(value: float, _position: object = None) -> str:
    """A tick's label: ``1,500``, ``20``, ``0.5``, ``10.8`` (never ``1.5e+03``), with the fewest
    decimals that keep it within :data:`LABEL_PRECISION` of the value: ticks at 10.8, 11.2 and
    11.6 read so, not ``11, 11, 12``."""
    for decimals in range(12):
        text = f"{value:,.{decimals}f}"
        if abs(float(text.replace(",", "")) - value) <= LABEL_PRECISION * abs(value):
            break
    return text


# Ticks per decade of a log axis, sparsest first: a span takes the sparsest that labels at
# least LEAST_LABELS ticks inside it
LOG_STEPS = ((1.0,), (1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0))


def plain_log_axis(axis: Axis, low: float, high: float) -> None:
    """Ticks of a log axis labelled as plain numbers (``5``, ``10``, ``20``, ``0.5``; never
    matplotlib's ``6×10⁰``): at the powers of ten over two decades or more, 1-2-5 over one,
    1-2-3-5 within one, each denser step in turn where fewer than :data:`LEAST_LABELS` ticks
    fall between ``low`` and ``high`` (15-2,100 MB: 100 and 1,000 alone; at 1-2-5, six); a
    span too narrow for any (74-104 MB: only 100) gets evenly spaced round numbers instead.
    The axis reaches the nearest tick at or below ``low`` and at or above ``high`` (the
    lowest and highest point), so neither end's point stands where no label is near."""
    decades = np.log10(high / low) if low > 0 and high > 0 else np.inf
    sparsest = 0 if decades >= 2 else 1 if decades >= 1 else 2
    if not np.isfinite(decades):
        axis.set_major_locator(LogLocator(subs=LOG_STEPS[sparsest]))
    else:
        first, last = int(np.floor(np.log10(low))) - 1, int(np.ceil(np.log10(high))) + 1
        for subs in LOG_STEPS[sparsest:]:
            ticks = [step * 10.0**power for power in range(first, last + 1) for step in subs]
            if len([tick for tick in ticks if low <= tick <= high]) >= LEAST_LABELS:
                break
        else:  # a round step that puts LEAST_LABELS ticks inside (nbins alone may leave 2)
            steps = MaxNLocator(nbins=4, min_n_ticks=LEAST_LABELS).tick_values(low, high)
            ticks = [float(tick) for tick in steps if tick > 0]
        # each end's label: the nearest tick or 1-9 step of a decade (2,100 MB: 3,000, not 5,000)
        ends = {*ticks, *(step * 10.0**power for power in range(first, last + 1)
                          for step in range(1, 10))}  # fmt: skip
        below = max(tick for tick in ends if tick <= low)
        above = min(tick for tick in ends if tick >= high)
        axis.set_major_locator(FixedLocator(sorted({*ticks, below, above})))
        _reach_ticks(axis, below, above)
    axis.set_major_formatter(FuncFormatter(plain_number))
    axis.set_minor_formatter(NullFormatter())


def _reach_ticks(axis: Axis, below: float, above: float) -> None:
    """Widen ``axis``' limits (never narrow them) to hold the ticks ``below`` and ``above``:
    the 74.5 MB point of a 74.5-104 MB axis sat below its first label, 80 (outside check 56h,
    item 3)."""
    axes, name = axis.axes, axis.axis_name
    start, end = getattr(axes, f"get_{name}lim")()
    if below < start or above > end:
        getattr(axes, f"set_{name}lim")(min(start, below), max(end, above))


LEAST_LABELS = 3  # labelled ticks a log axis shows between its lowest and highest value


def set_scale(axes: plt.Axes, metric: str, label: str | None = None, axis: str = "y") -> None:
    """The quantity's scale on ``axes``' ``axis`` ("x" or "y"), named in the axis label
    ("..., log scale"); a log axis's ticks are plain numbers of the label's unit
    (:func:`plain_log_axis`), over the axis' limits as set."""
    getattr(axes, f"set_{axis}scale")(SCALES[metric])
    if SCALES[metric] == "log":
        plain_log_axis(getattr(axes, f"{axis}axis"), *getattr(axes, f"get_{axis}lim")())
    getattr(axes, f"set_{axis}label")(f"{label or METRICS[metric][0]}, {SCALES[metric]} scale")


# a contended point's ring: black, no encoder's colour (red rings vanished on multi_cnn's red)
RING = "black"


def ring_contended(axes: plt.Axes, x: pd.Series, y: pd.Series) -> bool:
    """A black ring around each point timed while contended (starved of CPU); True if any."""
    if x.empty:
        return False
    axes.plot(x, y, linestyle="none", marker="o", markersize=12, markerfacecolor="none",
              markeredgecolor=RING, markeredgewidth=1.5)  # fmt: skip
    return True


def contended_legend(axes: plt.Axes) -> None:
    """The legend entry of :func:`ring_contended`'s rings."""
    axes.plot([], [], "o", markersize=9, markerfacecolor="none", markeredgecolor=RING,
              label="contended: starved of CPU while timed")  # fmt: skip


def error_bars(median: pd.Series, iqr: pd.Series) -> list[pd.Series]:
    """± IQR/2 around the median, the lower bar cut at zero (a time is never negative)."""
    half = iqr.fillna(0) / 2
    return [half.clip(upper=median), half]


def _title(axes: plt.Axes, rows: pd.DataFrame, mode: str) -> None:
    first = rows.iloc[0] if not rows.empty else None
    shape = f"batch {first['batch_size']}, dim {first['dim']}, " if first is not None else ""
    device = f"{first['device']} {first['dtype']}" if first is not None else ""
    axes.set_title(f"{MODE_TITLES.get(mode, mode)}: {shape}{device}", fontsize=10)
    axes.set_xlabel("sequence length")
    axes.grid(alpha=0.3)


def _mark_oom(axes: plt.Axes, group: pd.DataFrame, column: str, colour: object) -> bool:
    ok = group[group["status"] == OK]
    oom = group[group["status"] == OOM]
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
    figure, axes = plt.subplots(figsize=(6.8, 5.6))
    chosen = rows[rows["mode"] == mode]
    oom_marked = False
    for label, look in style.items():
        group = chosen[chosen["label"] == label].sort_values("seq_len")
        if group.empty:
            continue
        ok = group[group["status"] == OK]
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
    set_scale(axes, "peak_mem_mb")
    if (chosen["status"] == OK).any():  # a predict-only run measured nothing
        axes.plot([], [], "k-", label="measured")
    if chosen["peak_mem_mb_predicted"].notna().any():
        axes.plot(
            [], [], "k--", marker="o", markerfacecolor="none", label="predicted (meta tensors)"
        )
    if oom_marked:
        axes.plot([], [], "kx", markersize=8, label="out of memory")
    legend_below(axes)
    figure.tight_layout()
    return figure


def time_figure(rows: pd.DataFrame, mode: str, style: dict[str, dict[str, object]]) -> plt.Figure:
    figure, axes = plt.subplots(figsize=(6.8, 5.6))
    chosen = rows[rows["mode"] == mode]
    oom_marked = noisy_drawn = contended_drawn = False
    for label, look in style.items():
        group = chosen[chosen["label"] == label].sort_values("seq_len")
        ok = group[group["status"] == OK]
        if ok.empty:
            continue
        colour, marker = look["color"], look["marker"]
        axes.errorbar(
            ok["seq_len"],
            ok["time_ms_median"],
            yerr=error_bars(ok["time_ms_median"], ok["time_ms_iqr"]),
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
        contended = ok[ok["contended"]]
        contended_drawn |= ring_contended(axes, contended["seq_len"], contended["time_ms_median"])
        oom_marked |= _mark_oom(axes, group, "time_ms_median", colour)
    _title(axes, chosen, mode)
    set_scale(axes, "time_ms_median", METRICS["time_ms_median"][0] + ", median ± IQR/2")
    if noisy_drawn:
        axes.plot([], [], "ko", markerfacecolor="white", label="noisy: IQR > 25% of median")
    if contended_drawn:
        contended_legend(axes)
    if oom_marked:
        axes.plot([], [], "kx", markersize=8, label="out of memory")
    legend_below(axes)
    figure.tight_layout()
    return figure


def figures(rows: pd.DataFrame) -> Iterator[tuple[str, str, plt.Figure]]:
    """(file stem, title, figure) per mode: memory, then time when anything was timed."""
    style = styles(list(rows["label"].unique()))
    for mode in [m for m in MODE_TITLES if m in set(rows["mode"])]:
        title = MODE_TITLES[mode]
        chosen = rows[rows["mode"] == mode]
        timed = chosen[chosen["status"] == OK]["seq_len"]
        memory = f"Peak memory vs length, {title}"
        time = f"Time vs length, {title}"
        shown = chosen["seq_len"]
        if not timed.empty and (timed.min(), timed.max()) != (shown.min(), shown.max()):
            ranges = (
                f" (time: the measured lengths, L = {timed.min()}-{timed.max()}; memory: "
                f"those and the predicted ones, L = {shown.min()}-{shown.max()}: nothing is timed "
                "where it is only predicted)"
            )
            memory, time = memory + ranges, time + ranges
        yield f"memory_{mode}", memory, memory_figure(rows, mode, style)
        if not timed.empty:
            yield f"time_{mode}", time, time_figure(rows, mode, style)
