"""docs/results.md's reproduction tables are generated from the committed rows and stay so."""

from __future__ import annotations

from tools import results_doc


def test_results_doc_holds_the_tables_the_committed_rows_give() -> None:
    """Fails when a row, the preset or the doc's section changes without the others
    (regenerate with ``python -m tools.results_doc``)."""
    assert results_doc.SECTION.written() == results_doc.generated()


def test_every_task_and_encoder_mean_of_the_rows_is_in_the_doc() -> None:
    """The 36 (task, encoder) means appear in the doc (34 of them had vanished once)."""
    import pandas as pd

    runs = pd.read_csv(results_doc.ROWS)
    doc = results_doc.DOC.read_text()
    means = runs.groupby(["task", "encoder"])["test_acc"].mean() * 100
    missing = [key for key, mean in means.items() if f"{mean:.1f} (" not in doc]
    assert len(means) == 36
    assert not missing
