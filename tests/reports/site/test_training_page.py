"""The training page's summary table (reports.site.training_page.summary_rows)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reports.site.training_page import config_rerun, summary_rows


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


def test_a_fit_page_reruns_its_config_copy_and_a_moved_folder_with_out(tmp_path: Path) -> None:
    """Outside check 56i of #56, item 10: a fit page recorded 'cd /abs && sanbench fit --config
    f1/fit_config.yaml', not what was typed, and once f1 was moved to f2 it no longer ran.
    The manifest keeps the command as typed; the page adds the config copy's line, which names
    the folder where it is now, with --out when the run was made elsewhere."""
    typed = f"cd {tmp_path} && sanbench fit --config pf.yaml --trainer.max_steps 3"
    here = tmp_path / "f2"
    line, moved = config_rerun(here, typed, str(tmp_path / "f1"))
    assert line == (
        f"cd {tmp_path} && sanbench fit --config {here / 'fit_config.yaml'} --out {here}"
    )
    assert moved == str(tmp_path / "f1")
    line, moved = config_rerun(here, typed, str(here))
    assert line == f"cd {tmp_path} && sanbench fit --config {here / 'fit_config.yaml'}"
    assert moved is None
