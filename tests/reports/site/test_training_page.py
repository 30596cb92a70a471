"""The training page's summary table (reports.site.training_page.summary_rows)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pandas as pd
import pytest

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
    The page adds the config copy's line, which names the folder where it is now, with --out
    when the run was made elsewhere."""
    here = tmp_path / "f2"
    here.mkdir()
    line, moved = config_rerun(here, str(tmp_path / "f1"))
    assert line == f"sanbench fit --config {here / 'fit_config.yaml'} --out {here}"
    assert moved == str(tmp_path / "f1")
    line, moved = config_rerun(here, str(here))
    assert line == f"sanbench fit --config {here / 'fit_config.yaml'}"
    assert moved is None


def test_a_fit_pages_rerun_line_has_resolved_paths_and_outlives_renamed_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 56j of #56, item 7: a fit typed in a/ with '--out ../b/f1', its report
    built in c/, printed 'cd /t/a && sanbench fit --config /t/c/../b/f1/fit_config.yaml --out
    /t/c/../b/f1' and said 'the run was made in /t/a/../b/f1, not in this folder' of the same
    folder; once a/ or c/ was renamed the line failed. Now its paths are resolved, it has no
    cd, and it says nothing of a move."""
    for name in ("a", "b/f1", "c"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "b/f1/fit_config.yaml").write_text("out: x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "c")
    line, moved = config_rerun(Path("../b/f1").absolute(), str(tmp_path / "a/../b/f1"))
    assert moved is None
    assert "cd " not in line and ".." not in line
    (tmp_path / "a").rename(tmp_path / "a_moved")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c").rename(tmp_path / "c_moved")
    words = shlex.split(line)
    assert Path(words[words.index("--config") + 1]).is_file()
    # the config names its folder through a/, gone: the line names it as it is
    assert Path(words[words.index("--out") + 1]).is_dir()
    line, moved = config_rerun(tmp_path / "c_moved/../b/f1", str(tmp_path / "b/f1"))
    assert line == f"sanbench fit --config {tmp_path / 'b/f1/fit_config.yaml'}"
    assert moved is None
