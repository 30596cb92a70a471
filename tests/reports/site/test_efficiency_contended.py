"""The suite page's efficiency scatters (the MTSA paper's Fig. 1(c), the Bi-BloSAN paper's
Fig. 1) draw a time taken while contended hollow, as the cost figures do, where the table marks
it ``c``: they drew it filled (issue 56, outside check 6 item 5d)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from matplotlib.figure import Figure

from reports.palette import styles
from reports.site.training_figures import efficiency_figures


def test_a_contended_time_is_drawn_hollow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept: dict[str, Figure] = {}

    def keep(figure: Figure, path: str | Path, *args: Any, **kwargs: Any) -> None:
        kept[Path(path).stem] = figure
        Path(path).write_bytes(b"figure not drawn by the test")

    monkeypatch.setattr(Figure, "savefig", keep)
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
