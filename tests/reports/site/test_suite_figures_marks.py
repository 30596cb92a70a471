"""The suite page's figures read right (issue 56, "Pages"): the cost figure's caption said
"(pf16 has no mtsa as run)"; contended points were ringed in red over multi_cnn's red; in the
memory panel one encoder's error bar hid another's at the same memory."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.colors import to_rgba

from reports.palette import MIN_DELTA_E, colours, delta_e, styles
from reports.profile.data import load_run
from reports.site.compare_page import ratio_figure, ratios
from reports.site.cost_figures import Point, cost_figure, cost_figures
from reports.site.training_data import load_suite_results

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_the_caption_says_in_words_why_no_profile_stands_in_for_memory(tmp_path: Path) -> None:
    suite = FIXTURES / "suite-sst2-contended"
    results = load_suite_results(suite)
    style = styles(sorted(results["encoder"].unique()))
    profile = ("profile-cpu-fp32", load_run(FIXTURES / "profile-cpu-fp32").rows)
    (figure,) = cost_figures(results, {}, [profile], style, tmp_path)
    caption = figure["title"]
    assert "as run" not in caption, caption
    assert caption.endswith(
        "memory: the mean of its runs' peaks during training; the profile profile-cpu-fp32 "
        "cannot stand in for it: it did not profile training of bilstm or mtsa (as the suite "
        "runs them, without encoder options)"
    ), caption


def test_contended_rings_are_no_encoders_colour() -> None:
    """Red rings (``red``) on multi_cnn's tab:red markers read as one mark (CIE76 ΔE 28, where
    the palette keeps its colours 20 apart): rings are black, twice that from every colour."""
    base = load_run(FIXTURES / "profile-quick-contended").rows
    other = load_run(FIXTURES / "profile-cpu-bf16").rows
    table = ratios(base, other)
    assert "multi_cnn" in set(table["encoder"])
    figure = ratio_figure(table, "train", "bf16 / fp32", cross_machine=True)
    rings = [line for line in figure.axes[0].get_lines() if line.get_markerfacecolor() == "none"]
    assert rings
    for ring in rings:
        edge = to_rgba(ring.get_markeredgecolor())
        assert min(delta_e(edge, colour) for colour in colours()) >= 2 * MIN_DELTA_E, edge
    plt.close(figure)


def test_an_error_bar_at_the_same_memory_does_not_hide_another() -> None:
    """bilstm and mtsa at 30 MB: the narrower interval is drawn over the wider, every bar see-
    through and every marker above every bar."""
    points = [
        Point("bilstm", 2, 60.0, 4.0, 7.1, 30.0, contended=False),
        Point("mtsa", 2, 50.0, 50.0, 9.7, 30.0, contended=False),
        Point("multi_cnn", 2, 50.0, 50.0, 2.8, 5.0, contended=False),
    ]
    style = styles([p.encoder for p in points])
    figure = cost_figure("sst2", points, "test accuracy (%)", style, None)
    by_memory = figure.axes[1]
    bars = {
        to_rgba(collection.get_color()[0], 1.0): collection for collection in by_memory.collections
    }
    bilstm, mtsa = (bars[to_rgba(style[name]["color"], 1.0)] for name in ("bilstm", "mtsa"))
    assert bilstm.get_zorder() > mtsa.get_zorder()
    assert all(c.get_alpha() is not None and c.get_alpha() < 1 for c in bars.values())
    markers = [line for line in by_memory.get_lines() if line.get_markersize() == 9]
    assert min(m.get_zorder() for m in markers) > max(c.get_zorder() for c in bars.values())
    plt.close(figure)
