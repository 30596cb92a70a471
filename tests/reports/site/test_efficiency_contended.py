"""The suite page's efficiency scatters (the MTSA paper's Fig. 1(c), the Bi-BloSAN paper's
Fig. 1) draw a time taken while contended hollow, as the cost figures do, where the table marks
it ``c``: they drew it filled (issue 56, outside check 6 item 5d); a time per epoch scaled from a
partial epoch is lettered e, as the table marks it (outside check 56e item 8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.transforms import Affine2D, Bbox

from reports.palette import styles
from reports.site.training_figures import efficiency_figures


def figures_kept(monkeypatch: pytest.MonkeyPatch) -> dict[str, Figure]:
    """The figures saved from now on, by file stem, none written (a placeholder file is)."""
    kept: dict[str, Figure] = {}

    def keep(figure: Figure, path: str | Path, *args: Any, **kwargs: Any) -> None:
        kept[Path(path).stem] = figure
        Path(path).write_bytes(b"figure not drawn by the test")

    monkeypatch.setattr(Figure, "savefig", keep)
    return kept


def marker_extent(points: PathCollection, dpi: float) -> Bbox:
    """Where (pixels) the first marker of ``points`` was last drawn, its edge included
    (matplotlib's own window extent of a scatter is empty here)."""
    centre = points.get_offset_transform().transform(points.get_offsets()[0])
    drawn = Affine2D(points.get_transforms()[0]).translate(*centre)
    return points.get_paths()[0].get_extents(drawn).padded(points.get_linewidths()[0] * dpi / 72)


def test_a_contended_time_is_drawn_hollow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = figures_kept(monkeypatch)
    results = pd.DataFrame(
        {
            "task": "cr",
            "encoder": ["bilstm", "multi_cnn"],
            "peak_train_mem_mb": [20.0, 12.0],
            "dev_infer_time_s": [0.5, 0.25],
            "train_time_per_epoch_s": [3.0, 2.0],
            "test_acc": [0.7, 0.8],
            "train_contended": [True, False],
            "dev_infer_contended": [True, False],
        }
    )
    captions = efficiency_figures(results, styles(["bilstm", "multi_cnn"]), tmp_path)
    assert len(kept) == 2, kept
    for name, figure in kept.items():
        filled = {
            points.get_label(): any(face[3] > 0 for face in points.get_facecolor())
            for points in figure.axes[0].collections
            if points.get_label() in ("bilstm", "multi_cnn")
        }
        assert filled == {"bilstm": False, "multi_cnn": True}, (name, filled)
        texts = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
        assert "hollow: contended time" in texts, (name, texts)
    assert all("hollow" in caption["title"] for caption in captions), captions


def test_a_time_per_epoch_scaled_from_a_partial_epoch_is_lettered_e(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check b56e of #56, item 8: a fit of 3 steps drew 9,310 s per epoch (scaled from
    its batches) in the Bi-BloSAN Fig. 1 scatter with no mark, where the table beside marks the
    cell ``e`` and the accuracy-against-cost figure letters it. Now the point is lettered e, the
    legend and the caption say why; the MTSA Fig. 1(c), which draws no time per epoch, is not."""
    kept = figures_kept(monkeypatch)
    results = pd.DataFrame(
        {
            "task": "mr",
            "encoder": ["bilstm", "multi_cnn"],
            "peak_train_mem_mb": [112.0, 12.0],
            "dev_infer_time_s": [0.5, 0.25],
            "train_time_per_epoch_s": [9310.0, 2.0],
            "train_epochs_timed": [0, 1],
            "test_acc": [0.5, 0.8],
        }
    )
    drawn = efficiency_figures(results, styles(["bilstm", "multi_cnn"]), tmp_path)
    captions = [caption["title"] for caption in drawn]
    marked = {name: [t.get_text() for t in figure.axes[0].texts] for name, figure in kept.items()}
    assert marked["bi_blosan_fig1_mr"].count("e") == 1 and "e" not in marked["mtsa_fig1c_mr"]
    legend = [t.get_text() for t in kept["bi_blosan_fig1_mr"].axes[0].get_legend().get_texts()]
    assert "e: time scaled from a partial epoch" in legend
    fig1, fig1c = sorted(captions, key=lambda title: "Bi-BloSAN" not in title)
    assert "e: time scaled from a partial epoch (bilstm), marked e in the tables" in fig1
    assert "scaled" not in fig1c


def test_the_fig_1_marks_stand_clear_of_their_points_and_the_legend_holds_its_handles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 56, leftover: in the Bi-BloSAN Fig. 1 of a 3-step fit the e touched its (hollow)
    point, the label did at the largest size, and the legend, inside the axes, drew each
    encoder's handle at its point's size: a large triangle stuck out of the frame. Now every
    text stands clear of every marker and inside the axes, and the legend, beside the axes,
    holds its handles, all within the figure, at a small size and the largest alike."""
    kept = figures_kept(monkeypatch)
    encoders = ["bilstm", "multi_cnn", "bi_blosan", "disan", "mtsa"]  # o, v, X, *, h
    results = pd.DataFrame(
        {
            "task": "mr",
            "encoder": encoders,
            "peak_train_mem_mb": [170.0, 12.0, 60.0, 90.0, 30.0],
            "dev_infer_time_s": [0.5, 0.25, 0.4, 0.3, 0.2],
            "train_time_per_epoch_s": [9310.0, 2.0, 4000.0, 8000.0, 500.0],
            "train_epochs_timed": [0, 0, 1, 0, 0],
            "test_acc": [0.5, 0.9, 0.7, 0.85, 0.6],
            "train_contended": [True, True, False, False, True],
        }
    )
    efficiency_figures(results, styles(encoders), tmp_path)
    figure = kept["bi_blosan_fig1_mr"]
    canvas = FigureCanvasAgg(figure)  # saving closed the figure
    canvas.draw()
    renderer = canvas.get_renderer()
    axes = figure.axes[0]
    box = axes.get_window_extent(renderer)
    points = [c for c in axes.collections if len(c.get_offsets())]
    assert len(points) == len(encoders) and len(axes.texts) == len(encoders) + 4  # e of 4
    for point in points:
        marker = marker_extent(point, figure.dpi)
        for text in axes.texts:
            extent = text.get_window_extent(renderer)
            assert not extent.overlaps(marker), (text.get_text(), point.get_label())
    for text in axes.texts:
        extent = text.get_window_extent(renderer)
        assert box.contains(extent.x0, extent.y0) and box.contains(extent.x1, extent.y1), text
    legend = axes.get_legend()
    frame = legend.get_frame().get_window_extent(renderer)
    assert not frame.overlaps(box) and figure.bbox.contains(frame.x1, frame.y0)
    handles = [h for h in legend.legend_handles if isinstance(h, PathCollection)]
    assert len(handles) == len(encoders) + 1  # and the hollow one
    for handle in handles:
        extent = marker_extent(handle, figure.dpi)
        assert frame.contains(extent.x0, extent.y0) and frame.contains(extent.x1, extent.y1)
