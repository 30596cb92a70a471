"""docs/results.md's reproduction tables are generated from the committed rows and stay so."""

from __future__ import annotations

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "results_doc.py"


def _tool():
    spec = importlib.util.spec_from_file_location("results_doc", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_doc_holds_the_tables_the_committed_rows_give() -> None:
    """Fails when a row, the preset or the doc's section changes without the others
    (regenerate with ``python tools/results_doc.py``)."""
    tool = _tool()
    assert tool.written(tool.DOC.read_text()) == tool.generated()


def test_every_task_and_encoder_mean_of_the_rows_is_in_the_doc() -> None:
    """The 36 (task, encoder) means appear in the doc (34 of them had vanished once)."""
    import pandas as pd

    tool = _tool()
    runs = pd.read_csv(tool.ROWS)
    doc = tool.DOC.read_text()
    means = runs.groupby(["task", "encoder"])["test_acc"].mean() * 100
    missing = [key for key, mean in means.items() if f"{mean:.1f} (" not in doc]
    assert len(means) == 36
    assert not missing
