"""What a figure says and where: matplotlib writes every text it draws (titles, tick labels,
legend entries, the axis offset) into the SVG as a comment before its glyphs; and whether a
legend lies over the data."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

TEXT = re.compile(r"<!-- (.*?) -->", re.DOTALL)


def svg_texts(svg: Path) -> list[str]:
    """Every text of a figure written by ``reports.site.render.save_figure``, in drawing order."""
    return TEXT.findall(Path(svg).read_text())


def drawn_pixels(axes: plt.Axes, samples: int = 200) -> np.ndarray:
    """Every drawn point of ``axes``' lines in display pixels: markers where a line has no
    line style, else points densely along it."""
    found = [np.empty((0, 2))]
    for line in axes.get_lines():
        x, y = (np.asarray(v, float) for v in line.get_data())
        if len(x) == 0:
            continue
        if len(x) > 1 and line.get_linestyle() not in ("None", "none", ""):
            steps = np.arange(len(x))
            t = np.linspace(0, len(x) - 1, samples * (len(x) - 1))
            x, y = np.interp(t, steps, x), np.interp(t, steps, y)
        found.append(axes.transData.transform(np.column_stack([x, y])))
    pixels = np.concatenate(found)
    return pixels[np.isfinite(pixels).all(axis=1)]


def legend_covers_data(figure: plt.Figure) -> bool:
    """Whether any legend of ``figure`` lies over a drawn point or line of its axes."""
    figure.draw_without_rendering()  # places the legends, paints no pixel
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent()
        pixels = drawn_pixels(axes)
        inside = (
            (pixels[:, 0] >= box.x0)
            & (pixels[:, 0] <= box.x1)
            & (pixels[:, 1] >= box.y0)
            & (pixels[:, 1] <= box.y1)
        )
        if inside.any():
            return True
    return False
