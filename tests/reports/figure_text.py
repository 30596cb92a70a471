"""What a figure says: matplotlib writes every text it draws (titles, tick labels, legend
entries, the axis offset) into the SVG as a comment before its glyphs."""

from __future__ import annotations

import re
from pathlib import Path

TEXT = re.compile(r"<!-- (.*?) -->", re.DOTALL)


def svg_texts(svg: Path) -> list[str]:
    """Every text of a figure written by ``reports.site.render.save_figure``, in drawing order."""
    return TEXT.findall(Path(svg).read_text())
