"""Accuracy against cost (issue 56.15): the Pareto front, the interval over runs, a profile's
memory standing in for the suite's, contended times hollow."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reports.aggregation import half_interval, mean_std
from reports.contracts.fit_folder import FitRunFolder
from reports.palette import styles
from reports.profile.data import load_run
from reports.site.cost_figures import (
    FRONT_RULE,
    Point,
    bar,
    cost_figure,
    cost_figures,
    cut,
    mean_length,
    pareto_front,
    profile_dtype,
    spread_words,
    stand_in,
)
from reports.site.training_data import load_suite_results, read_run_file
from tests.reports.figure_text import svg_texts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DOCS = Path(__file__).resolve().parents[3] / "docs" / "reports.md"
PROFILE = FIXTURES / "profile-cpu-fp32"  # disan, bi_blosan, multi_cnn at L = 8, 16, 32, 64


def dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """``a`` costs at most as much as ``b`` and is at least as accurate, and better in one."""
    return a[0] <= b[0] and a[1] >= b[1] and (a[0] < b[0] or a[1] > b[1])


@given(
    st.lists(
        st.tuples(st.integers(1, 20).map(float), st.integers(0, 20).map(float)),
        min_size=1,
        max_size=9,
    )
)
def test_the_front_is_every_point_no_other_point_dominates(points: list) -> None:
    cost, quality = (np.array(values) for values in zip(*points, strict=True))
    front = pareto_front(cost, quality)
    for i, point in enumerate(points):
        dominated = any(dominates(other, point) for j, other in enumerate(points) if j != i)
        assert front[i] == (not dominated)
    assert front.any()  # the cheapest of the most accurate is always on it


def test_a_point_without_a_cost_is_never_on_the_front() -> None:
    front = pareto_front(np.array([1.0, np.nan]), np.array([0.5, 0.9]))
    assert front.tolist() == [True, False]


def test_the_interval_is_students_t_and_absent_for_one_run() -> None:
    assert math.isnan(half_interval(mean_std([0.9])))
    # two runs, t(0.975, 1) = 12.706: mean 0.55, std 0.0707, half-width 0.635
    assert half_interval(mean_std([0.5, 0.6])) == pytest.approx(0.6353, abs=1e-4)
    assert half_interval(mean_std([0.5, 0.6, 0.7])) == pytest.approx(0.2484, abs=1e-4)


@pytest.mark.parametrize(("length", "chosen"), [(20.0, 16), (24.0, 32), (3.0, 8), (500.0, 64)])
def test_a_profile_stands_in_at_the_profiled_length_nearest_the_mean(
    length: float, chosen: int
) -> None:
    rows = load_run(PROFILE).rows
    found = stand_in([("fp32", rows)], ["multi_cnn", "bi_blosan"], length)
    assert found is not None and found.seq_len == chosen and found.basis == "measured"
    point = rows[(rows["label"] == "bi_blosan") & (rows["mode"] == "train")]
    expected = point[point["seq_len"] == chosen]["peak_mem_mb"].item()
    assert found.memory_mb["bi_blosan"] == expected
    assert found.batch_size == "4" and found.dim == "16"


def test_a_profile_that_lacks_an_encoder_as_run_does_not_stand_in() -> None:
    rows = load_run(PROFILE).rows
    assert stand_in([("fp32", rows)], ["multi_cnn", "bilstm"], 20.0) is None
    naive = rows.assign(label=rows["label"].replace("disan", "disan:attention_impl=naive"))
    assert stand_in([("fp32", naive)], ["multi_cnn", "disan"], 20.0) is None
    assert stand_in([("fp32", rows)], ["multi_cnn", "disan"], None) is None


def test_contended_times_are_hollow_and_the_front_is_ringed() -> None:
    points = [
        Point("multi_cnn", 2, 60.0, 5.0, 1.0, 5.0, contended=True),
        Point("bilstm", 2, 70.0, 3.0, 4.0, 30.0, contended=False),
        Point("mtsa", 2, 65.0, math.nan, 8.0, 20.0, contended=False),
    ]
    figure = cost_figure(
        "sst2", points, "test accuracy (%)", styles(["multi_cnn", "bilstm", "mtsa"]), None
    )
    by_time, by_memory = figure.axes[:2]

    def faces(axes: plt.Axes) -> dict[float, str]:
        found = {}
        for line in axes.get_lines():
            x = line.get_xdata()
            if len(x) == 1 and line.get_markersize() == 9:
                face = line.get_markerfacecolor()
                found[float(x[0])] = face if isinstance(face, str) else "filled"
        return found

    assert faces(by_time) == {1.0: "none", 4.0: "filled", 8.0: "filled"}
    assert faces(by_memory) == {5.0: "filled", 30.0: "filled", 20.0: "filled"}
    rings = [line for line in by_memory.get_lines() if line.get_markersize() == 17]
    assert sorted(float(line.get_xdata()[0]) for line in rings) == [
        5.0,
        20.0,
        30.0,
    ]  # all on the front
    rings = [line for line in by_time.get_lines() if line.get_markersize() == 17]
    assert sorted(float(line.get_xdata()[0]) for line in rings) == [1.0, 4.0]  # mtsa: slower, worse
    assert by_memory.get_xscale() == "log" and by_time.get_xscale() == "linear"
    plt.close(figure)


def rings(axes: plt.Axes) -> list[float]:
    """The costs of the points ``axes`` rings as on the Pareto front."""
    return sorted(float(line.get_xdata()[0]) for line in axes.get_lines()
                  if line.get_markersize() == 17)  # fmt: skip


def test_of_equally_accurate_encoders_the_words_and_the_rings_name_the_cheapest() -> None:
    """Outside check 56h, item 1: cr, where every encoder scored 63.8%, ringed one encoder
    per panel (the cheapest), while the page said "no other encoder is both as cheap or cheaper
    and more accurate", by which all three were on the front."""
    points = [
        Point("multi_cnn", 2, 63.8, 0.0, 100.0, 49.1, contended=False),
        Point("bilstm", 2, 63.8, 0.0, 217.0, 85.8, contended=False),
        Point("mtsa", 2, 63.8, 0.0, 12.6, 83.6, contended=False),
    ]
    figure = cost_figure(
        "cr", points, "test accuracy (%)", styles(["multi_cnn", "bilstm", "mtsa"]), None
    )
    by_time, by_memory = figure.axes[:2]
    assert rings(by_time) == [12.6] and rings(by_memory) == [49.1]
    plt.close(figure)
    said = " ".join(FRONT_RULE.split())
    assert "at least as accurate and at most as costly, and better in one of the two" in said
    assert "of equally accurate encoders only the cheapest is on the front" in said
    assert said in " ".join(DOCS.read_text().split())


def test_an_e_mark_stays_inside_the_time_panel_at_either_end() -> None:
    """Outside check 56i of #56, item 11: the e of a scaled time sat to the right of its point,
    so at the panel's x limit (cr's multi_cnn) it was drawn past the right frame."""
    points = [
        Point("multi_cnn", 2, 63.8, 1.0, 283.0, 49.1, contended=False, scaled=True),
        Point("bilstm", 2, 60.0, 1.0, 12.6, 85.8, contended=False, scaled=True),
    ]
    figure = cost_figure("cr", points, "test accuracy (%)", styles(["multi_cnn", "bilstm"]), None)
    by_time = figure.axes[0]
    figure.canvas.draw()
    frame = by_time.get_window_extent()
    marks = [text for text in by_time.texts if text.get_text() == "e"]
    assert len(marks) == 2
    for mark in marks:
        box = mark.get_window_extent()
        assert frame.x0 < box.x0 and box.x1 < frame.x1, (box, frame)
    plt.close(figure)


@pytest.mark.slow  # draws two figures
def test_a_suite_beside_a_profile_is_drawn_with_the_profiles_memory(tmp_path: Path) -> None:
    suite = FIXTURES / "suite-tiny"
    results = load_suite_results(suite)
    predictions = read_run_file(suite, results, FitRunFolder.read_predictions)
    style = styles(sorted(results["encoder"].unique()))
    rows = load_run(PROFILE).rows
    figures = cost_figures(results, predictions, [("profile-cpu-fp32", rows)], style, tmp_path)
    assert [f["svg"] for f in figures] == ["accuracy_cost_cr.svg", "accuracy_cost_sst2.svg"]
    length = mean_length(predictions, "sst2")
    assert f"mean, {length:.1f} tokens), batch 4, width 16, measured" in figures[1]["title"]
    assert "one run each: no interval" in figures[1]["title"]
    texts = svg_texts(tmp_path / figures[1]["svg"])
    assert (
        "Pareto front" in texts and "sst2: test accuracy (%) vs training time and memory" in texts
    )
    alone = cost_figures(results, predictions, [], style, tmp_path / "alone")
    assert alone[0]["title"].endswith("memory: the mean of its runs' peaks during training")
    frame = pd.DataFrame({"task": ["sst2"], "encoder": ["x"]})
    assert cost_figures(frame, {}, [], style, tmp_path / "none") == []  # no test metric


def test_an_interval_past_0_or_100_percent_is_cut_there_and_said() -> None:
    """Two seeds give a t-interval of ±12.7 standard errors: past what an accuracy can be."""
    wide = Point("mtsa", 2, 50.0, 127.0, 1.0, 1.0, contended=False)
    assert bar(wide, (0.0, 100.0)) == [[50.0], [50.0]] and cut(wide, (0.0, 100.0))
    narrow = Point("mtsa", 3, 80.0, 5.0, 1.0, 1.0, contended=False)
    assert bar(narrow, (0.0, 100.0)) == [[5.0], [5.0]] and not cut(narrow, (0.0, 100.0))
    single = Point("mtsa", 1, 80.0, math.nan, 1.0, 1.0, contended=False)
    assert bar(single, (0.0, 100.0)) is None and not cut(single, (0.0, 100.0))


def test_the_caption_says_which_bars_are_drawn_and_where_they_are_cut() -> None:
    """Outside check 56h, item 2: cr's caption said "bars: 95% interval over 2 runs each" where
    every run scored 63.8% (no bar drawn), trec's "cut at 0 and 100" where only 0 cut one."""

    def point(encoder: str, runs: int, quality: float, interval: float) -> Point:
        return Point(encoder, runs, quality, interval, 1.0, 1.0, contended=False)

    bounds = (0.0, 100.0)
    same = [point("bilstm", 2, 63.8, 0.0), point("mtsa", 2, 63.8, 0.0)]
    assert spread_words(same, bounds) == (
        "over 2 runs each, no spread (every run of each encoder scored the same): no bars"
    )
    trec = [point("multi_cnn", 2, 18.6, 71.2), point("mtsa", 2, 17.6, 22.9)]
    assert spread_words(trec, bounds) == "bars: 95% interval over 2 runs each, cut at 0"
    assert cut(trec[0], bounds) == [0.0] and cut(point("x", 2, 90.0, 20.0), bounds) == [100.0]
    mixed = [*trec, point("bilstm", 2, 63.8, 0.0), point("disan", 1, 50.0, math.nan)]
    assert spread_words(mixed, bounds) == (
        "bars: 95% interval over 1–2 runs each, cut at 0; none for bilstm: no spread (its "
        "runs scored the same); none for disan: one run"
    )
    assert spread_words([point("x", 1, 1.0, math.nan)], bounds) == "one run each: no interval"
    figure = cost_figure("cr", same, "test accuracy (%)", styles(["bilstm", "mtsa"]), None)
    assert figure.axes[0].get_ylabel() == "test accuracy (%)"  # no "and 95% interval"
    plt.close(figure)


def test_only_a_profile_in_the_suites_precision_stands_in() -> None:
    fp32 = load_run(PROFILE).rows
    bf16 = load_run(FIXTURES / "profile-cpu-bf16").rows
    encoders = ["multi_cnn", "bi_blosan"]
    assert stand_in([("bf16", bf16)], encoders, 20.0, "fp32") is None
    assert stand_in([("bf16", bf16), ("fp32", fp32)], encoders, 20.0, "fp32").profile == "fp32"
    assert stand_in([("bf16", bf16), ("fp32", fp32)], encoders, 20.0, "bf16").profile == "bf16"
    shown = {p: profile_dtype(p) for p in ("32-true", "bf16-mixed", "16-mixed", "", "64-true")}
    assert shown == {"32-true": "fp32", "bf16-mixed": "bf16", "16-mixed": "fp16", "": "fp32"} | {
        "64-true": "fp64"  # no profile runs in fp64: none stands in
    }
    assert profile_dtype("precision 16-mixed") == "fp16"  # as the page's environment says it


def test_the_axis_names_an_interval_only_where_one_is_drawn() -> None:
    """With one run each the caption said "no interval" under an axis of "mean and 95%
    interval" (issue 56 breaker)."""
    one_run = [Point("bilstm", 1, 70.0, math.nan, 4.0, 30.0, contended=False)]
    two_runs = [Point("bilstm", 2, 70.0, 3.0, 4.0, 30.0, contended=False)]
    for points, label in ((one_run, "test accuracy (%)"), (two_runs, "95% interval")):
        figure = cost_figure("sst2", points, "test accuracy (%)", styles(["bilstm"]), None)
        assert figure.axes[0].get_ylabel().endswith(label)
        plt.close(figure)


def test_a_time_scaled_from_a_partial_epoch_is_lettered_e_and_said_in_the_legend() -> None:
    """The table marks such a time e; the figure drew it as any measured one (issue 56)."""
    points = [
        Point("multi_cnn", 2, 60.0, 5.0, 1.0, 5.0, contended=False, scaled=True),
        Point("bilstm", 2, 70.0, 3.0, 4.0, 30.0, contended=False),
    ]
    figure = cost_figure("sst2", points, "test accuracy (%)", styles(["multi_cnn", "bilstm"]), None)
    by_time, by_memory = figure.axes[:2]
    letters = [(text.get_text(), text.xy) for text in by_time.texts]
    assert letters == [("e", (1.0, 60.0))]
    legend = [text.get_text() for text in by_memory.get_legend().get_texts()]
    assert "e: time scaled from a partial epoch" in legend
    plt.close(figure)
