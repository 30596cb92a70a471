"""The suite and fit pages' figures as a reader sees them (issue 56): a title names the task and
what is drawn, and a paper only as a paper (on 023e32f the length figure was "DiSAN accuracy vs
sentence length, trec" over bilstm and multi_cnn); no legend sits over a curve (it did in the
training-time figure)."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from reports.contracts.fit_folder import FitRunFolder
from reports.palette import styles
from reports.site import training_figures
from reports.site.training_data import load_suite_results, read_run_file
from tests.reports.figure_text import legend_covers_data, svg_texts

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "suite-tiny"
# the papers' encoders as a title would print them (FIGURE_NAMES: the display names)
PAPER_ENCODERS = ("DiSAN", "Bi-BloSAN", "MTSA", "MPSAN")


def all_figures(folder: Path) -> list[dict[str, str]]:
    """Every figure the suite page draws from the fixture suite (efficiency, curves, lengths)."""
    results = load_suite_results(SUITE)
    style = styles(sorted(results["encoder"].unique()))
    curves = read_run_file(SUITE, results, FitRunFolder.read_curve)
    lengths = training_figures.accuracy_by_length(
        read_run_file(SUITE, results, FitRunFolder.read_predictions)
    )
    return [
        *training_figures.efficiency_figures(results, style, folder),
        *training_figures.curve_figures(curves, style, folder),
        *training_figures.length_figures(lengths, style, folder),
    ]


AS_PAPER = re.compile(r"(?:'s|’s)? paper")


def encoders_named_as_drawn(text: str) -> list[str]:
    """The papers' encoders ``text`` names other than as a paper ("the MTSA paper's")."""
    return [
        name
        for name in PAPER_ENCODERS
        for match in re.finditer(rf"\b{re.escape(name)}\b", text)
        if not AS_PAPER.match(text, match.end())
    ]


def test_the_check_catches_the_old_titles() -> None:
    assert encoders_named_as_drawn("DiSAN accuracy vs sentence length, trec") == ["DiSAN"]
    assert encoders_named_as_drawn("MTSA Fig. 1(c), cr") == ["MTSA"]
    assert encoders_named_as_drawn("cr (as in the Bi-BloSAN paper's Fig. 5)") == []


@pytest.mark.slow  # draws eight figures
def test_no_title_or_caption_names_an_encoder_as_drawn_and_each_names_its_task(
    tmp_path: Path,
) -> None:
    figures = all_figures(tmp_path)
    assert len(figures) == 8  # per task: two efficiency scatters, the curves, the lengths
    for figure in figures:
        texts = [figure["title"], *svg_texts(tmp_path / figure["svg"])]
        wrong = [name for text in texts for name in encoders_named_as_drawn(text)]
        assert wrong == [], (figure["svg"], texts)
        task = re.search(r"_(cr|sst2)\.svg$", figure["svg"])[1]
        assert figure["title"].startswith(f"{task}: ")


def test_the_check_sees_a_legend_over_a_curve() -> None:
    figure, axes = plt.subplots()
    axes.plot([0, 1], [0, 1], label="a")
    axes.plot([0, 1], [1, 0], label="b")
    axes.legend(loc="center")
    assert legend_covers_data(figure)
    plt.close(figure)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[plt.Figure]:
    """The figures ``training_figures`` saves, kept open for the test."""
    figures: list[plt.Figure] = []

    def keep(figure: plt.Figure, folder: Path, stem: str, title: str) -> dict[str, str]:
        figures.append(figure)
        return {"title": title, "png": f"{stem}.png", "svg": f"{stem}.svg"}

    monkeypatch.setattr(training_figures, "save_figure", keep)
    yield figures
    for figure in figures:
        plt.close(figure)


def zigzag(encoders: list[str], points: int = 12) -> dict[tuple, pd.DataFrame]:
    """Validation curves that sweep the whole plot, corner to corner, as long runs' do."""
    curves = {}
    for shift, encoder in enumerate(encoders):
        seconds = np.arange(points, dtype=float)
        accuracy = np.where((np.arange(points) + shift) % 2 == 0, 0.95, 0.05)
        curves[("trec", encoder, "seed0")] = pd.DataFrame(
            {"train_seconds": seconds, "val_acc": accuracy}
        )
    return curves


@pytest.mark.parametrize("encoders", [["bilstm"], ["bilstm", "multi_cnn", "mtsa", "bi_blosan"]])
def test_the_training_time_figure_keeps_its_legend_off_the_curves(
    drawn: list[plt.Figure], encoders: list[str]
) -> None:
    training_figures.curve_figures(zigzag(encoders), styles(encoders), Path("."))
    (figure,) = drawn
    assert not legend_covers_data(figure)


def test_the_length_figure_keeps_its_legend_off_the_lines(drawn: list[plt.Figure]) -> None:
    encoders = ["bilstm", "multi_cnn", "disan"]
    rows = [
        {"task": "trec", "encoder": e, "bin": b, "examples": 10, "accuracy": (i + k) % 2}
        for k, e in enumerate(encoders)
        for i, b in enumerate(training_figures.LENGTH_LABELS)
    ]
    training_figures.length_figures(pd.DataFrame(rows), styles(encoders), Path("."))
    (figure,) = drawn
    assert not legend_covers_data(figure)


def test_the_length_figure_says_which_lines_coincide(drawn: list[plt.Figure]) -> None:
    """Outside check 56h item 9: on cr every encoder predicted the majority class, and the
    figure drew three identical lines, two of them hidden under the third, saying nothing."""
    encoders = ["bilstm", "mtsa", "multi_cnn", "disan"]
    rows = [
        {
            "task": "cr",
            "encoder": e,
            "bin": b,
            "examples": 10,
            "accuracy": 0.6 + 0.2 * (e == "disan"),
        }
        for e in encoders
        for b in training_figures.LENGTH_LABELS[:3]
    ]
    written = training_figures.length_figures(pd.DataFrame(rows), styles(encoders), Path("."))
    (figure,) = drawn
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == [
        "bilstm",
        "disan",
        "mtsa (same as bilstm: one line)",
        "multi_cnn (same as bilstm: one line)",
    ]
    assert written[0]["title"].endswith(
        "; mtsa and multi_cnn score as bilstm in every bin: their lines coincide"
    )
    assert not legend_covers_data(figure)


@pytest.mark.parametrize(
    ("memory", "seconds"),
    [
        ((1234.5671, 1234.5672), (0.0136101, 0.0136102)),  # two near-equal runs
        ((8.17,), (0.0136,)),  # a fit page: one run
        ((0.5,), (0.0,)),
    ],
)
def test_the_efficiency_axes_read_their_own_values(
    memory: tuple[float, ...], seconds: tuple[float, ...]
) -> None:
    """Issue 56 breaker: near-equal runs put Fig. 1(c)'s scale in an offset (``1e-7+1.36101e-2``
    over ticks 0.0 to 1.0), so no tick said a value: every tick label is a value in the axis'
    unit, no offset, and the axis spans at least a tenth of its values' size."""
    names = [f"e{i}" for i in range(len(memory))]
    means = pd.DataFrame(
        {"peak_train_mem_mb": memory, "dev_infer_time_s": seconds, "test_acc": [0.6] * len(names)},
        index=names,
    )
    _, _, x, y = training_figures.EFFICIENCY[0]
    figure = training_figures._scatter(
        means, x, y, training_figures.quality_column(means), styles(names), "t"
    )
    figure.draw_without_rendering()  # lays out the ticks, paints no pixel
    [axes] = figure.axes
    for axis, values in ((axes.xaxis, memory), (axes.yaxis, seconds)):
        assert axis.get_major_formatter().get_offset() == ""
        low, high = axis.get_view_interval()
        assert low <= min(values) and max(values) <= high
        assert high - low >= 0.1 * abs(np.mean(values))
        labels = [tick.get_text() for tick in axis.get_ticklabels() if tick.get_text()]
        assert len(labels) >= 3 and not any("e" in label for label in labels), labels
    plt.close(figure)


def test_the_length_figure_marks_a_partly_tested_encoder(drawn: list[plt.Figure]) -> None:
    """Outside check b5x item 1: with --trainer.limit_test_batches 0.5 the tables marked the
    scores p, but the by-length figure's legend said only ``multi_cnn``."""
    encoders = ["bilstm", "multi_cnn"]
    results = pd.DataFrame(
        {
            "task": ["trec"] * 3,
            "encoder": ["bilstm", "multi_cnn", "multi_cnn"],
            "test_acc": [0.5, 0.1, 0.2],
            "test_scored_share": [1.0, 0.51, 0.51],
        }
    )
    rows = [
        {"task": "trec", "encoder": e, "bin": b, "examples": 10, "accuracy": 0.1 * k + 0.1 * i}
        for k, e in enumerate(encoders)
        for i, b in enumerate(training_figures.LENGTH_LABELS[:3])
    ]
    shares = training_figures.partial_test_shares(results)
    assert shares == {("trec", "multi_cnn"): "51.0%"}
    (written,) = training_figures.length_figures(
        pd.DataFrame(rows), styles(encoders), Path("."), shares
    )
    (figure,) = drawn
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == ["bilstm", "multi_cnn (p: shortest 51.0% of test)"]
    # outside check 5y of #56: the loaders sort test by length, the part scored is its short end
    assert written["title"].endswith(
        "; p: multi_cnn scored on the shortest 51.0% of the test split"
    )
    assert not legend_covers_data(figure)


def test_a_range_of_shares_reads_as_one() -> None:
    results = pd.DataFrame(
        {"task": ["sst2", "sst2"], "encoder": ["disan"] * 2, "test_scored_share": [0.4, 0.5]}
    )
    assert training_figures.partial_test_shares(results) == {("sst2", "disan"): "40.0–50.0%"}
