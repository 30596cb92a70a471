"""The profile figures' look: one palette by encoder name, full legends, honest axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from reports.palette import style, styles
from reports.profile.data import ProfileRun
from reports.profile.figures import error_bars, memory_figure, time_figure
from reports.site.compare_page import overlay_figure


def rows(encoders: list[str], scale: float = 1.0) -> pd.DataFrame:
    records = [
        {
            "label": encoder,
            "encoder": encoder,
            "mode": "infer",
            "seq_len": seq_len,
            "batch_size": 64,
            "dim": 300,
            "device": "cpu",
            "dtype": "fp32",
            "status": "ok",
            "time_ms_median": scale * seq_len,
            "time_ms_iqr": 3 * scale * seq_len,  # wider than the median: a bar reaching below 0
            "peak_mem_mb": 1.0 + seq_len / 1000,  # a small spread: once a linear axis
            "peak_mem_mb_predicted": None,
            "noisy": False,
            "contended": seq_len == 32,
        }
        for encoder in encoders
        for seq_len in (16, 32, 64)
    ]
    return pd.DataFrame.from_records(records)


def test_an_encoder_keeps_its_look_whatever_else_is_drawn() -> None:
    alone = styles(["disan"])["disan"]
    assert styles(["bilstm", "disan", "mtsa", "zzz_plugin"])["disan"] == alone == style("disan")
    variant = "disan:attention_impl=chunked"
    assert styles([variant])[variant] == styles(["a_plugin", variant, "disan"])[variant]
    fixed = [style(name)["color"] for name in ("bilstm", "bigru", "multi_head", "disan", "mtsa")]
    assert len(set(fixed)) == len(fixed)


def test_every_fixed_slot_has_a_colour_of_its_own() -> None:
    """The papers' naive DiSAN and Bi-BloSAN of the profile figures look unlike the default
    (chunked) ones of the training pages, and no two fixed labels share a colour."""
    from reports.palette import FIXED, FIXED_COLOURS

    assert len(FIXED) <= len(FIXED_COLOURS)
    colours = [style(label)["color"] for label in FIXED]
    assert len(set(colours)) == len(colours)
    assert style("disan:attention_impl=naive") != style("disan")


def test_error_bars_stop_at_zero_and_axes_say_their_scale() -> None:
    median, iqr = pd.Series([1.0, 10.0]), pd.Series([6.0, 4.0])
    lower, upper = error_bars(median, iqr)
    assert list(lower) == [1.0, 2.0] and list(upper) == [3.0, 2.0]
    data = rows(["disan", "mtsa"])
    figure = time_figure(data, "infer", styles(["disan", "mtsa"]))
    axes = figure.axes[0]
    assert axes.get_yscale() == "linear" and axes.get_ylabel().endswith("linear scale")
    bottoms = [
        segment[:, 1].min()
        for collection in axes.collections
        for segment in collection.get_segments()
    ]
    assert bottoms and min(bottoms) >= 0
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert any(text.startswith("contended") for text in legend)
    memory = memory_figure(data, "infer", styles(["disan", "mtsa"])).axes[0]
    assert memory.get_yscale() == "log" and memory.get_ylabel().endswith("log scale")
    plt.close("all")


def test_comparison_overlay_names_every_encoder_of_every_run() -> None:
    first = ProfileRun(folder=None, rows=rows(["disan", "mtsa"]), manifest={})  # type: ignore[arg-type]
    second = ProfileRun(folder=None, rows=rows(["mtsa", "bi_blosan"], 0.5), manifest={})  # type: ignore[arg-type]
    for metric, scale in (("time_ms_median", "linear"), ("peak_mem_mb", "log")):
        axes = overlay_figure([first, second], ["fp32", "bf16"], "infer", metric).axes[0]
        legend = {text.get_text() for text in axes.get_legend().get_texts()}
        assert legend == {"disan", "mtsa", "bi_blosan", "fp32", "bf16"}
        assert axes.get_yscale() == scale and axes.get_ylabel().endswith(f"{scale} scale")
        line = next(h for h in axes.get_legend().legend_handles if h.get_label() == "bi_blosan")
        assert line.get_color() == pytest.approx(style("bi_blosan")["color"])
    plt.close("all")
