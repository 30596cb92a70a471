"""Aggregation math, paper-number tables and the parameter-count table."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from encoders import list_encoders
from harness.suite.parameter_counts import (
    PAPER_ROWS,
    ParamSpec,
    param_row,
    param_rows,
    params_table,
)
from harness.suite.runner import COLUMNS, KEY_COLUMNS
from harness.suite.summary_tables import (
    PAPER_TABLES,
    aggregate,
    comparison,
    finished,
    load_results,
    render,
    summarize,
)
from harness.suite.table_files import Table
from reports.contracts.results_file import ResultsFile
from reports.paper_numbers import BI_BLOSAN, MTSA, PAPER_VALUES, lookup

# (task, encoder, replicate, status, test_acc)
ROWS = [
    ("cr", "bi_blosan", "fold0", "ok", 0.80),
    ("cr", "bi_blosan", "fold1", "ok", 0.84),
    ("cr", "bi_blosan", "fold2", "ok", 0.88),
    ("trec", "bi_blosan", "seed0", "ok", 0.90),
    ("trec", "bi_blosan", "seed1", "failed", None),
    ("trec", "bi_blosan", "seed1", "ok", 0.92),
    ("trec", "mtsa", "seed0", "failed", None),
    ("sick", "mtsa", "seed0", "ok", None),
]


def _write(out: Path, rows: list[tuple[Any, ...]], shard: str = "1-of-1") -> None:
    results = ResultsFile(out / f"results-{shard}.csv", KEY_COLUMNS)
    for task, encoder, replicate, status, acc in rows:
        row = dict.fromkeys(COLUMNS, "")
        row.update(task=task, encoder=encoder, replicate=replicate, status=status)
        if status == "failed":
            row["error"] = "ValueError: boom"
        elif acc is not None:
            row.update(test_acc=acc, params=2_000_000, train_time_per_epoch_s=10.0)
        else:
            row.update(test_pearson=0.8, test_spearman=0.7, test_mse=0.3)
        results.append(row)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    _write(tmp_path, ROWS)
    return tmp_path


def _cell(summary: pd.DataFrame, task: str, encoder: str, metric: str) -> pd.Series:
    hit = summary[
        (summary.task == task) & (summary.encoder == encoder) & (summary.metric == metric)
    ]
    assert len(hit) == 1
    return hit.iloc[0]


def test_mean_and_sample_std_over_folds_and_seeds_in_percent(out: Path) -> None:
    summary = summarize(load_results(out))
    cr = _cell(summary, "cr", "bi_blosan", "test_acc")
    assert (cr.n, cr["mean"], cr["std"]) == (3, pytest.approx(84.0), pytest.approx(4.0))
    trec = _cell(summary, "trec", "bi_blosan", "test_acc")
    assert trec.n == 2 and trec["mean"] == pytest.approx(91.0)
    assert trec["std"] == pytest.approx(math.sqrt(2))
    sick = _cell(summary, "sick", "mtsa", "test_pearson")
    assert sick["mean"] == pytest.approx(0.8) and math.isnan(sick["std"])
    assert summary[(summary.task == "trec") & (summary.encoder == "mtsa")].empty


def test_a_run_recorded_in_two_shards_counts_once(out: Path) -> None:
    _write(out, [("cr", "bi_blosan", "fold0", "ok", 0.80)], shard="2-of-2")
    assert len(finished(load_results(out))) == 6
    assert _cell(summarize(load_results(out)), "cr", "bi_blosan", "test_acc").n == 3


def test_table6_puts_the_papers_numbers_beside_ours(out: Path) -> None:
    spec = next(s for s in PAPER_TABLES if s.name == "bi_blosan_table6")
    table = render(spec, comparison(summarize(load_results(out)), spec))
    header = table.header
    row = table.rows[0]
    assert row[:2] == ["bi_blosan", "Bi-BloSAN"]
    assert row[header.index("CR (ours)")] == "84.0 (4.0)"
    assert row[header.index("CR (paper)")] == "84.8 (0.9)"
    assert row[header.index("TREC (ours)")] == "91.0 (1.4)"
    assert row[header.index("TREC (paper)")] == "94.8 (0.2)"
    assert row[header.index("SST-1 (ours)")] == "–"
    assert row[header.index("SST-1 (paper)")] == "50.6 (0.5)"
    markdown = table.to_markdown()
    assert "| bi_blosan | Bi-BloSAN | 84.0 (4.0) | 84.8 (0.9) |" in markdown


def test_aggregate_writes_every_file_and_lists_failures(out: Path) -> None:
    written = aggregate(out, param_encoders=["multi_cnn"])
    names = {path.name for path in written}
    for name in ("summary.csv", "comparison.csv", "tables.md", "params.csv"):
        assert name in names
    assert "bi_blosan_table6.csv" in names and "mtsa_table5.md" in names
    assert not [n for n in names if n.endswith(".html")]  # HTML is rendered by reports/
    assert "bi_blosan_table5.md" in names  # SICK ran
    assert "bi_blosan_table1.md" not in names  # SNLI did not run
    markdown = (out / "tables" / "tables.md").read_text()
    assert "| trec | mtsa | seed0 | ValueError: boom |" in markdown
    assert "| trec | bi_blosan | seed1 |" not in markdown  # retried successfully
    comparison_csv = pd.read_csv(out / "comparison.csv")
    mtsa_trec = comparison_csv[
        (comparison_csv.table == "mtsa_table5") & (comparison_csv.task == "trec")
    ]
    assert set(mtsa_trec.paper_mean) == {94.8}  # bi_blosan's row of MTSA Table 5


def test_the_params_table_lists_the_encoders_that_ran(tmp_path: Path) -> None:
    """Issue 56 (H17.12): a suite of two encoders listed all 19 registered encoders in its
    parameter table (and so on its page); a variant is listed by its encoder's name."""
    _write(tmp_path, [("trec", "multi_cnn", "seed0", "ok", 0.9),
                      ("trec", "word_additive:x=1", "seed0", "failed", None)])  # fmt: skip
    aggregate(tmp_path)
    listed = pd.read_csv(tmp_path / "tables" / "params.csv")["encoder"]
    assert list(listed) == ["multi_cnn", "word_additive"]


def test_aggregate_of_an_empty_folder_still_writes_headers(tmp_path: Path) -> None:
    aggregate(tmp_path, param_encoders=["multi_cnn"])
    assert pd.read_csv(tmp_path / "summary.csv").empty
    assert "paper_mean" in pd.read_csv(tmp_path / "comparison.csv").columns


def test_paper_numbers_spot_checks_against_the_papers_text() -> None:
    assert lookup(BI_BLOSAN, "Table 1", "disan", "snli", "params").value == pytest.approx(2.3e6)
    assert lookup(BI_BLOSAN, "Table 2", "bi_blosan", "snli", "peak_train_mem_mb").value == 1243
    sick = lookup(BI_BLOSAN, "Table 5", "disan", "sick", "test_mse")
    assert (sick.value, sick.std) == (0.2879, 0.0036)
    sst2 = lookup(BI_BLOSAN, "Table 6", "bilstm", "sst2", "test_acc")
    assert (sst2.value, sst2.std) == (87.7, 0.6)
    assert lookup(MTSA, "Table 1", "mtsa", "snli", "train_time_per_epoch_s").value == 180
    assert lookup(MTSA, "Table 5", "mtsa", "sst1", "test_acc").value == 51.3
    assert lookup(MTSA, "Table 5", "mtsa", "sst2", "test_acc") is None
    keys = [(v.paper, v.table, v.encoder, v.task, v.metric) for v in PAPER_VALUES]
    assert len(keys) == len(set(keys))


def test_the_two_papers_agree_on_their_shared_classification_rows() -> None:
    for encoder in ("bilstm", "multi_head", "disan", "bi_blosan"):
        for task in ("cr", "mpqa", "subj", "trec", "sst1"):
            a = lookup(BI_BLOSAN, "Table 6", encoder, task, "test_acc")
            b = lookup(MTSA, "Table 5", encoder, task, "test_acc")
            assert (a.value, a.std) == (b.value, b.std), (encoder, task)


@pytest.mark.slow
def test_params_are_encoder_plus_the_snli_head() -> None:
    row = param_row(next(spec for spec in PAPER_ROWS if spec.encoder == "multi_cnn"))
    assert row.encoder_params == 300 * 200 * (3 + 4 + 5) + 3 * 200  # Kim 2014 filters
    assert row.head_params == (4 * 600 * 300 + 300) + (300 * 3 + 3)
    assert row.paper.value == pytest.approx(1.4e6)
    assert row.deviation == pytest.approx(row.total_params / 1.4e6 - 1)
    wide, narrow = (
        param_row(ParamSpec(n, "bi_blosan", (("hidden_dim", h),)))
        for n, h in (("600D", 300), ("480D", 240))
    )
    assert (wide.output_dim, narrow.output_dim) == (600, 480)


def test_params_table_lists_paper_rows_first_and_other_encoders_without_paper() -> None:
    other = next(name for name in list_encoders() if name not in {s.encoder for s in PAPER_ROWS})
    table = params_table(param_rows([other, "multi_cnn"]))
    assert [line[0] for line in table.rows] == ["Multi-CNN", other]
    assert table.rows[0][7] == "1.40m" and table.rows[1][7] == "–"


@pytest.mark.slow
def test_every_parameter_deviation_beyond_ten_percent_is_explained_in_the_docs() -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "suite.md").read_text()
    explained = docs.split("### Deviations beyond 10%", 1)[1]
    for spec in PAPER_ROWS:
        if spec.encoder not in list_encoders():
            continue
        row = param_row(spec)
        if abs(row.deviation) > 0.10:
            assert f"* {spec.label} (" in explained, (spec.label, row.deviation)


def test_a_time_cell_with_a_contended_run_is_marked_and_explained() -> None:
    """The suite's time column carries the profiler's contention evidence (issue 35)."""
    from harness.suite.summary_tables import CONTENDED_NOTE, summary_table

    def records(contended: int, acc: float) -> list[tuple]:
        return [
            ("snli", "bi_blosan", "train_time_per_epoch_s", 2, 10.0, 1.0),
            ("snli", "bi_blosan", "train_contended", 2, contended / 2, 0.7),
            ("snli", "bi_blosan", "test_acc", 2, acc, 0.1),
        ]

    columns = ["task", "encoder", "metric", "n", "mean", "std"]
    spec = next(s for s in PAPER_TABLES if s.name == "bi_blosan_table2")  # its time column
    runs = pd.Series({("snli", "bi_blosan"): 2})
    for contended, marked in ((1, True), (0, False)):
        summary = pd.DataFrame(records(contended, 85.0), columns=columns)
        cells = comparison(summary, spec)
        assert cells.loc[cells["metric"] != "train_time_per_epoch_s", "contended"].sum() == 0
        for table in (render(spec, cells), summary_table(summary, runs)):
            times = [v for line in table.rows for v in line if v.startswith("10.0")]
            assert times and all(v.endswith(" c") == marked for v in times), table.rows
            assert (CONTENDED_NOTE in table.notes) == marked


def test_a_cv_task_run_on_fewer_folds_says_how_many_and_an_empty_cell_what_it_means(
    out: Path,
) -> None:
    """Outside check b56e of #56, item 9: Table 6 gave ``CR (ours) 63.8 (0.0)`` from 2 folds
    under a note saying 'held-out fold of 10-fold CV', and the tables' ``–`` cells had no
    legend in tables.md (the HTML has one)."""
    spec = next(s for s in PAPER_TABLES if s.name == "bi_blosan_table6")
    table = render(spec, comparison(summarize(load_results(out)), spec))
    assert "CR (ours): over 3 of the 10 folds only (the paper's: all 10)." in table.notes
    assert table.notes[-1].startswith("Paper: ")
    assert not [note for note in table.notes if note.startswith(("TREC (ours)", "SST"))]
    lines = table.to_markdown().splitlines()
    legend = "–: no value (none set, measured or reported here, or not applicable)."
    assert lines[lines.index(legend) - 1] == "" and lines[lines.index(legend) + 2][:2] == "- "
    one = Table("t", "T", ["a", "range"], [["1", "64–512"]])
    assert legend not in one.to_markdown()  # a range's dash is no empty cell


def test_the_mark_notes_follow_the_marks_given_not_text_that_reads_like_one() -> None:
    """Outside check 5z of #56, item 15: ``_with_mark_notes`` said the contended note when any
    cell held ``" c"``, a paper row's text included; now it says the notes of the marks given."""
    from harness.suite.summary_tables import CONTENDED_NOTE

    columns = ["task", "encoder", "metric", "n", "mean", "std"]
    spec = next(s for s in PAPER_TABLES if s.name == "bi_blosan_table2")
    summary = pd.DataFrame(
        [("snli", "bi_blosan", "train_time_per_epoch_s", 2, 10.0, 1.0)], columns=columns
    )
    cells = comparison(summary, spec).assign(paper_row="Bi-LSTM + conv cells")
    table = render(spec, cells)
    assert " c" in table.rows[0][1] and CONTENDED_NOTE not in table.notes
