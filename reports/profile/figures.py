"""Figures in the papers' style: a metric vs sequence length, one line per encoder.

Bi-BloSAN Fig. 6 (a) inference time, (b) memory; MTSA Fig. 1 (a) memory, (b) time. Every
encoder keeps its colour and marker in all figures; an ``x`` at the length that ran out of
memory, drawn at the height of the encoder's last measured value, ends its line.
"""

from __future__ import annotations

from pathlib import Path

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
MARKERS = ("o", "s", "^", "v", "D", "P", "*", "X", "h", "<", ">", "p", "d", "8")
METRICS = {
    "time_ms_median": ("time per step (ms)", "time"),
    "peak_mem_mb": ("peak memory (MB)", "memory"),
}
MODE_TITLES = {"infer": "inference", "train": "training (forward + backward)"}


def styles(encoders: list[str]) -> dict[str, dict[str, object]]:
    """Colour and marker per encoder, stable across figures and reports."""
    ordered = [e for e in KNOWN_ORDER if e in encoders]
    ordered += sorted(e for e in encoders if e not in KNOWN_ORDER)
    colours = plt.get_cmap("tab20").colors
    return {
        name: {"color": colours[i % len(colours)], "marker": MARKERS[i % len(MARKERS)]}
        for i, name in enumerate(ordered)
    }


def plot_metric(
    rows: pd.DataFrame, mode: str, metric: str, style: dict[str, dict[str, object]]
) -> plt.Figure:
    label, _ = METRICS[metric]
    figure, axes = plt.subplots(figsize=(6.4, 4.4))
    chosen = rows[rows["mode"] == mode]
    oom_marked = False
    for encoder in style:
        group = chosen[chosen["encoder"] == encoder].sort_values("seq_len")
        ok = group[group["status"] == "ok"]
        if group.empty:
            continue
        axes.plot(ok["seq_len"], ok[metric], label=encoder, markersize=4, **style[encoder])
        oom = group[group["status"] == "oom"]
        if not oom.empty and not ok.empty:
            axes.plot(
                oom["seq_len"].min(),
                ok[metric].iloc[-1],
                marker="x",
                markersize=10,
                markeredgewidth=2.5,
                color=style[encoder]["color"],
                linestyle="none",
            )
            oom_marked = True
    first = chosen.iloc[0] if not chosen.empty else None
    shape = f"batch {first['batch_size']}, dim {first['dim']}, " if first is not None else ""
    device = f"{first['device']} {first['dtype']}" if first is not None else ""
    axes.set_title(f"{MODE_TITLES.get(mode, mode)}: {shape}{device}", fontsize=10)
    axes.set_xlabel("sequence length")
    axes.set_ylabel(label)
    axes.grid(alpha=0.3)
    if oom_marked:
        axes.plot([], [], "kx", markersize=8, label="out of memory")
    axes.legend(fontsize=8, ncol=2)
    figure.tight_layout()
    return figure


def write_figures(rows: pd.DataFrame, folder: Path) -> list[dict[str, str]]:
    """PNG + SVG per (mode, metric); returns [{"title", "png", "svg"}] relative to ``folder``."""
    style = styles(sorted(rows["encoder"].unique()))
    written = []
    for mode in [m for m in MODE_TITLES if m in set(rows["mode"])]:
        for metric, (label, short) in METRICS.items():
            figure = plot_metric(rows, mode, metric, style)
            stem = f"{short}_{mode}"
            for suffix in ("png", "svg"):
                figure.savefig(folder / f"{stem}.{suffix}", dpi=150)
            plt.close(figure)
            title = f"{label.split(' (')[0].capitalize()} vs length, {MODE_TITLES[mode]}"
            written.append({"title": title, "png": f"{stem}.png", "svg": f"{stem}.svg"})
    return written
