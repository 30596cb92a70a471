"""Memory on a log axis and time on a linear one everywhere, each axis label naming its scale
(docs/reports.md). Outside check 5 (issue 56): the fit and suite pages' efficiency scatters
(the MTSA paper's Fig. 1(c), the Bi-BloSAN paper's Fig. 1) drew memory on a linear axis
labelled "training memory (MB)" only."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from matplotlib.axis import Axis
from matplotlib.figure import Figure

from reports.palette import styles
from reports.site import build_site
from reports.site.training_figures import efficiency_figures

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MEMORY = re.compile(r"\bmemory\b", re.IGNORECASE)
TIME = re.compile(r"\btime\b", re.IGNORECASE)


def site_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Figure]:
    """Every figure the site of all fixtures saves, by file name (kept, not drawn)."""
    kept: dict[str, Figure] = {}

    def keep(figure: Figure, path: str | Path, *args: Any, **kwargs: Any) -> None:
        kept[f"{Path(path).parent.name}/{Path(path).stem}"] = figure
        Path(path).write_bytes(b"figure not drawn by the test")

    monkeypatch.setattr(Figure, "savefig", keep)
    build_site(sorted(p for p in FIXTURES.iterdir() if p.is_dir()), tmp_path / "site")
    return kept


def wrong_scales(name: str, figure: Figure) -> list[str]:
    """Each axis of ``figure`` whose label names memory or a time (not a ratio of them) and is
    not on its quantity's scale, or does not say which."""
    wrong = []
    for axes in figure.axes:
        axis: Axis
        for axis, scale in ((axes.xaxis, axes.get_xscale()), (axes.yaxis, axes.get_yscale())):
            label = axis.get_label_text()
            first = label.split("\n", 1)[0]
            if "ratio" in first:
                continue
            wanted = "log" if MEMORY.search(first) else "linear" if TIME.search(first) else ""
            if wanted and (scale != wanted or f", {wanted} scale" not in first):
                wrong.append(f"{name}: {label!r} is drawn {scale}")
    return wrong


@pytest.mark.slow  # builds the fixtures' site (its figures made, not drawn): 25 s at load 2
def test_every_memory_axis_is_log_and_every_time_axis_linear_and_each_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    figures = site_figures(tmp_path, monkeypatch)
    labels = [
        axis.get_label_text()
        for figure in figures.values()
        for axes in figure.axes
        for axis in (axes.xaxis, axes.yaxis)
    ]
    assert any(MEMORY.search(label) for label in labels)  # the check has figures to check
    assert any("mtsa_fig1c" in name for name in figures)
    wrong = [line for name, figure in figures.items() for line in wrong_scales(name, figure)]
    assert wrong == [], "\n".join(wrong)


def test_a_memory_of_zero_is_named_not_drawn(tmp_path: Path) -> None:
    """A log axis has no place for 0: the caption names the encoder it leaves out."""
    results = pd.DataFrame(
        {
            "task": "cr",
            "encoder": ["bilstm", "multi_cnn"],
            "peak_train_mem_mb": [0.0, 12.0],
            "dev_infer_time_s": [0.5, 0.25],
            "train_time_per_epoch_s": [3.0, 2.0],
            "test_acc": [0.7, 0.8],
        }
    )
    captions = [
        figure["title"]
        for figure in efficiency_figures(results, styles(["bilstm", "multi_cnn"]), tmp_path)
    ]
    assert len(captions) == 2
    assert all(
        c.endswith("not drawn, its memory not above 0 on a log axis: bilstm") for c in captions
    )
