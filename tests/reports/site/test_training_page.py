"""The training page's summary table (reports.site.training_page.summary_rows)."""

from __future__ import annotations

import pandas as pd

from reports.site.training_page import summary_rows


def test_the_parameter_count_has_no_std_and_memory_its_means_places() -> None:
    """Outside check b56e of #56, item 9: the suite page read ``|θ| 1,746,902 (0)`` (one model,
    one count; tables.md gives no std) and ``67.1 (0.0202)``."""
    runs = pd.DataFrame(
        {
            "task": ["cr", "cr"],
            "encoder": ["bilstm", "bilstm"],
            "params": [1_746_902, 1_746_902],
            "peak_train_mem_mb": [67.1143, 67.0857],
        }
    )
    header, (row,) = summary_rows(runs)
    assert row[header.index("|θ|")] == "1,746,902"
    assert row[header.index("peak train memory (MB)")] == "67.1 (0.0)"
