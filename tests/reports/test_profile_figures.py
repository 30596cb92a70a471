"""The profile figures' look: one palette by encoder name, full legends off the data, honest
axes."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reports.palette import style, styles
from reports.paper_numbers import FIGURE_ENCODERS
from reports.profile.data import ProfileRun, load_run
from reports.profile.figures import (
    RING,
    error_bars,
    figures,
    memory_figure,
    plain_log_axis,
    time_figure,
)
from reports.site.compare_page import overlay_figure, ratio_figure, ratios
from tests.reports.figure_text import legend_covers_data


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


def test_any_two_encoders_of_a_figure_are_told_apart_and_an_encoder_looks_alike_everywhere() -> (
    None
):
    """Any two families in one figure are at least MIN_DELTA_E apart in CIELAB, every encoder
    registered and plugins alike (on e81e6e0 the papers' naive DiSAN and multi_cnn were 11
    apart, naive Bi-BloSAN and Bi-LSTM both blue); a label has its encoder's colour, so DiSAN
    is the same colour on the profile page (naive) and a fit page (chunked), and a marker of its
    own, and so has an encoder named after a figure encoder (``disan_nodir``); no colour is grey
    or pale."""
    from encoders import encoder_entry, list_encoders
    from reports.palette import MIN_DELTA_E, colours, delta_e, family, lab

    built_in = [n for n in list_encoders() if encoder_entry(n).source.kind == "built-in"]
    labels = [*built_in, *FIGURE_ENCODERS, "disan:attention_impl=chunked:chunk_size=8"]
    labels += ["my_plugin", "another_plugin", "zzz_encoder", "plugin:x=1"]
    drawn = styles(labels)
    by_family = {family(label.split(":")[0]): look["color"] for label, look in drawn.items()}
    names = list(by_family)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            distance = delta_e(by_family[first], by_family[second])
            assert distance >= MIN_DELTA_E, (first, second, distance)
    for label in drawn:  # within a family every label has its own marker
        same = [
            other for other in drawn if family(other.split(":")[0]) == family(label.split(":")[0])
        ]
        assert len({drawn[other]["marker"] for other in same}) == len(same)
    for label in FIGURE_ENCODERS:
        encoder = label.split(":")[0]
        assert style(label)["color"] == style(encoder)["color"]
        if label != encoder:
            assert style(label)["marker"] != style(encoder)["marker"]
    for variant in ("disan_nodir", "mtsa_no_s2t", "bilstm_s2t", "bi_blosan_no_local"):
        assert style(variant)["color"] == style(family(variant))["color"] != style("mpsan")["color"]
    for colour in colours():
        lightness, a, b = lab(colour)
        assert (a**2 + b**2) ** 0.5 >= 15 and lightness <= 85
    assert styles(["bi_blosan"])["bi_blosan"] == style("bi_blosan")


def test_a_new_built_in_encoder_needs_no_palette_edit() -> None:
    """Issue 55.5: the palette keeps no list of encoders; a variant named after a figure
    encoder takes its colour, any other name a spare colour of its own."""
    import reports.palette

    assert not hasattr(reports.palette, "ENCODERS")
    assert style("disan_new_variant")["color"] == style("disan")["color"]
    figure_colours = {style(name)["color"] for name in ("bilstm", "disan", "mtsa")}
    assert style("a_new_model")["color"] not in figure_colours


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
        rings = {"contended: starved of CPU while timed"} if scale == "linear" else set()
        assert legend == {"disan", "mtsa", "bi_blosan", "fp32", "bf16"} | rings  # L=32 contended
        assert axes.get_yscale() == scale and axes.get_ylabel().endswith(f"{scale} scale")
        line = next(h for h in axes.get_legend().legend_handles if h.get_label() == "bi_blosan")
        assert line.get_color() == pytest.approx(style("bi_blosan")["color"])
    plt.close("all")


def test_a_time_panel_narrower_than_its_memory_panel_says_why() -> None:
    """The time figures cover the measured lengths, the memory figures the predicted ones too:
    where their ranges differ, both captions say so with the ranges."""
    from reports.profile.figures import figures

    data = rows(["disan"])
    predicted = data.iloc[[-1]].assign(seq_len=384, status="predicted", time_ms_median=None)
    titles = {stem: title for stem, title, _ in figures(pd.concat([data, predicted]))}
    for stem in ("memory_infer", "time_infer"):
        assert "L = 16-64" in titles[stem] and "L = 16-384" in titles[stem]
    same = {stem: title for stem, title, _ in figures(data)}
    assert "L = " not in same["time_infer"] and "L = " not in same["memory_infer"]
    plt.close("all")


CONTENDED = Path(__file__).parent / "fixtures" / "profile-quick-contended"


@pytest.mark.slow  # draws the four figures of a nine-encoder sweep
def test_no_legend_sits_over_the_data() -> None:
    """Issue 56: the training-time figure's legend covered points of a nine-encoder sweep."""
    drawn = list(figures(load_run(CONTENDED).rows))
    assert [stem for stem, _, _ in drawn] == [
        "memory_infer",
        "time_infer",
        "memory_train",
        "time_train",
    ]
    for stem, _, figure in drawn:
        assert not legend_covers_data(figure), stem
        plt.close(figure)


@pytest.mark.slow  # draws the comparison's figures
def test_no_legend_of_a_comparison_sits_over_the_data() -> None:
    run = load_run(CONTENDED)
    slower = ProfileRun(
        run.folder, run.rows.assign(time_ms_median=run.rows["time_ms_median"] * 1.5), {}
    )
    for mode in ("infer", "train"):
        for metric in ("time_ms_median", "peak_mem_mb"):
            figure = overlay_figure([run, slower], ["a", "b"], mode, metric)
            assert not legend_covers_data(figure), (mode, metric)
            plt.close(figure)
        figure = ratio_figure(ratios(run.rows, slower.rows), mode, "b / a", False)
        assert not legend_covers_data(figure), mode
        plt.close(figure)


def _tick_texts(axis: plt.Axes) -> list[str]:
    axis.figure.draw_without_rendering()  # lays out the ticks, paints no pixel
    ticks = [*axis.get_yticklabels(), *axis.get_yticklabels(minor=True)]
    return [tick.get_text() for tick in ticks if tick.get_text()]


@pytest.mark.parametrize("low", [1.0, 6.0, 150.0, 1_500.0])
def test_a_memory_axis_reads_plain_numbers_of_megabytes(low: float) -> None:
    """Issue 56 (H11.5): a memory axis within one decade read ``6×10⁰``, ``7×10⁰``."""
    data = rows(["disan", "mtsa"])
    data["peak_mem_mb"] = low * (1 + data["seq_len"] / 100)
    for axes in (
        memory_figure(data, "infer", styles(["disan", "mtsa"])).axes[0],
        overlay_figure([ProfileRun(Path("run"), data, {})], ["run"], "infer", "peak_mem_mb").axes[
            0
        ],
    ):
        texts = _tick_texts(axes)
        assert texts and all(re.fullmatch(r"[\d,]+(\.\d+)?", t) for t in texts), texts
        assert "(MB)" in axes.get_ylabel()
    plt.close("all")


def test_the_ratio_figure_rings_contended_times_as_the_tables_mark_them() -> None:
    """Issue 56 (H11.5): the comparison's ratio figure drew contended points as any other."""
    data = rows(["disan", "mtsa"])  # contended at L = 32
    figure = ratio_figure(ratios(data, data), "infer", "ratio", cross_machine=False)
    time_axes, memory_axes = figure.axes

    def rings(axes: plt.Axes) -> list[list[float]]:  # hollow, in RING (the line at 1 is black)
        return [
            list(line.get_xdata()) for line in axes.get_lines()
            if line.get_markeredgecolor() == RING and line.get_markerfacecolor() == "none"
            and len(line.get_xdata())
        ]  # fmt: skip

    assert rings(time_axes) == [[32, 32]]
    (under,) = figure.legends  # under both panels: under one it ran off the figure's edge
    legend = [text.get_text() for text in under.get_texts()]
    assert any(text.startswith("contended") for text in legend)
    assert {"disan", "mtsa"} <= set(legend)
    assert not rings(memory_axes)
    plt.close("all")


@settings(max_examples=50, deadline=None)
@given(low=st.floats(0.01, 100_000.0), ratio=st.floats(1.05, 10_000.0))
@example(low=87001.0, ratio=1.0508)  # MaxNLocator(nbins=4) put 2 ticks in it (CI, H24)
def test_a_log_axis_labels_at_least_three_ticks_over_any_span(low: float, ratio: float) -> None:
    """Issue 56 (H17.12): the accuracy-cost figure's memory axis over 74-104 MB labelled only
    "100" (a 1-2-3-5 tick per decade lands once in so narrow a span)."""
    figure, axes = plt.subplots()
    axes.set_xscale("log")
    axes.set_xlim(low, low * ratio)
    plain_log_axis(axes.xaxis, low, low * ratio)
    label = axes.xaxis.get_major_formatter()
    shown = [label(tick) for tick in axes.get_xticks() if low <= tick <= low * ratio]
    plt.close(figure)
    assert len([text for text in shown if text]) >= 3, (low, ratio, shown)
    assert all(re.fullmatch(r"[\d,]+(\.\d+)?", text) for text in shown), shown


@settings(max_examples=200, deadline=None)
@given(low=st.floats(0.01, 100_000.0), ratio=st.floats(1.05, 10_000.0))
@example(low=10.6, ratio=11.8 / 10.6)  # accuracy_cost_trec.png: "11, 11, 12"
@example(low=15.0, ratio=2098.0 / 15.0)  # a profile's training memory: 600, 1,200, 1,800
def test_a_log_axis_labels_each_tick_by_its_value_and_leaves_no_stretch_bare(
    low: float, ratio: float
) -> None:
    """Outside check of #56, item 12: a memory axis over 10.6-11.8 MB read "11, 11, 12" (ticks at
    10.8, 11.2, 11.6 rounded to whole megabytes), one over 15-2,100 MB labelled only 600, 1,200
    and 1,800 (evenly spaced numbers on a log axis: the lower two thirds bare). Each label is
    its tick's value (within 0.1%), and no stretch of the axis without a label (between two
    labelled ticks, or from an end to the nearest) spans more than half of it."""
    high = low * ratio
    figure, axes = plt.subplots()
    axes.set_xscale("log")
    axes.set_xlim(low, high)
    plain_log_axis(axes.xaxis, low, high)
    label = axes.xaxis.get_major_formatter()
    ticks = [tick for tick in axes.get_xticks() if low <= tick <= high]
    shown = [label(tick) for tick in ticks]
    plt.close(figure)
    for tick, text in zip(ticks, shown, strict=True):
        assert float(text.replace(",", "")) == pytest.approx(tick, rel=1e-3), (ticks, shown)
    assert len(set(shown)) == len(shown), shown
    edges = np.log10([low, *ticks, high])
    assert np.diff(edges).max() <= 0.5 * np.log10(ratio) + 1e-9, (low, high, shown)


@settings(max_examples=200, deadline=None)
@given(low=st.floats(0.01, 100_000.0), ratio=st.floats(1.05, 10_000.0), margin=st.booleans())
@example(low=6.8, ratio=26.4 / 6.8, margin=False)  # accuracy_cost_trec.png: ticks 12, 18, 24
@example(low=74.5, ratio=103.0 / 74.5, margin=False)  # a suite alone: its first label 80
@example(low=11.8, ratio=50.0 / 11.8, margin=True)  # the study page: 20, 30, 50 over 11.8
def test_a_log_axis_labels_a_tick_at_or_beyond_each_end_of_its_points(
    low: float, ratio: float, margin: bool
) -> None:
    """Outside check 56h, item 3: the cost figure's memory points at 6.8, 18.0 and 26.4 MB had
    labels at 12, 18 and 24 only, the cheapest point in a bare stretch, and the study page's
    peak memory (11.8 MB and up) was labelled from 20. Each end's point (the axis' limits as
    :func:`set_scale` passes them, or the points themselves as the cost figure does) has a
    labelled tick at or beyond it, inside the axis."""
    high = low * ratio
    figure, axes = plt.subplots()
    axes.set_xscale("log")
    axes.plot([low, high], [0.0, 1.0], "o")
    if margin:
        low, high = axes.get_xlim()
    plain_log_axis(axes.xaxis, low, high)
    start, end = axes.get_xlim()
    label = axes.xaxis.get_major_formatter()
    shown = [tick for tick in axes.get_xticks() if start <= tick <= end and label(tick)]
    plt.close(figure)
    assert start <= low and high <= end
    assert any(tick <= low * (1 + 1e-9) for tick in shown), (low, high, start, shown)
    assert any(tick >= high * (1 - 1e-9) for tick in shown), (low, high, end, shown)
