"""Suite rows, reproduction tables and study files: written and read back through their
contracts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from reports.contracts import reproduction
from reports.contracts.study import BEST_CONFIG, StudyFolder
from reports.contracts.suite_results import (
    COLUMNS,
    KEY_COLUMNS,
    finished_rows,
    run_folder,
    shard_file,
    shard_paths,
)


def _row(replicate: str, status: str, test_acc: str) -> dict[str, str]:
    row = dict.fromkeys(COLUMNS, "")
    row.update(task="trec", encoder="mtsa", replicate=replicate, status=status)
    row.update(test_acc=test_acc, run_dir=f"runs/trec/mtsa/{replicate}")
    return row


def test_suite_rows_keep_the_last_ok_row_per_run_over_shards(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no results-"):
        finished_rows(tmp_path)
    shard_file(tmp_path, "1-of-2").append(_row("seed0", "failed", ""))
    shard_file(tmp_path, "1-of-2").append(_row("seed0", "ok", "0.91"))
    shard_file(tmp_path, "2-of-2").append(_row("seed1", "ok", "0.93"))
    assert [p.name for p in shard_paths(tmp_path)] == ["results-1-of-2.csv", "results-2-of-2.csv"]
    rows = finished_rows(tmp_path)
    assert rows[list(KEY_COLUMNS)].values.tolist() == [
        ["trec", "mtsa", "seed0"],
        ["trec", "mtsa", "seed1"],
    ]
    assert rows["test_acc"].tolist() == [0.91, 0.93]
    assert run_folder(tmp_path, "trec", "mtsa", "seed1") == tmp_path / rows["run_dir"][1]


def test_a_shard_without_header_is_named(tmp_path: Path) -> None:
    (tmp_path / "results-1-of-1.csv").write_text("")
    with pytest.raises(ValueError, match=r"results-1-of-1.csv, line 1: header lacks"):
        finished_rows(tmp_path)


def test_reproduction_tables_round_trip_and_only_known_files(tmp_path: Path) -> None:
    taus = pd.DataFrame({"task": ["trec"], "title": ["TREC"], "tau": [1.0]})
    written = reproduction.write_tables(tmp_path, {reproduction.TAUS: taus.to_csv(index=False)})
    assert written == [tmp_path / reproduction.FOLDER / reproduction.TAUS]
    assert reproduction.read_table(tmp_path, reproduction.TAUS).equals(taus)
    with pytest.raises(ValueError, match="not reproduction files"):
        reproduction.write_tables(tmp_path, {"other.csv": ""})
    with pytest.raises(FileNotFoundError, match="--tables-only"):
        reproduction.read_table(tmp_path, reproduction.CELLS)


def test_study_files_round_trip(tmp_path: Path) -> None:
    study = StudyFolder(tmp_path)
    with pytest.raises(FileNotFoundError, match="sanbench tune"):
        study.read_trials()
    trials = pd.DataFrame({"number": [0, 1], "state": ["COMPLETE", "FAIL"], "value": [1.0, None]})
    study.write_trials(trials)
    assert study.read_trials().equals(trials)
    study.write_summary({"study": "dropout", "best": [{"number": 0}]})
    assert study.read_summary() == {"study": "dropout", "best": [{"number": 0}]}
    study.write_best_config("model:\n  dropout: 0.1\n")
    assert study.files({}, with_best_config=True)["best_config"] == BEST_CONFIG
    pd.DataFrame({"x": [1]}).to_csv(study.trials, index=False)
    with pytest.raises(ValueError, match="lacks 'number' or 'state'"):
        study.read_trials()
