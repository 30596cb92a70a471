"""A dev or test score of part of its split says so (issue 54, "no silent wrong number"):
``sanbench fit --trainer.limit_val_batches 0.5`` (or ``limit_test_batches 0.3``, or a count
below the split's batches) scored part of dev (test), and metrics.json, results-*.csv, tables.md
and the report pages showed the accuracies as whole-split scores, with no word."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from harness.quiet import hide_lightning_tips
from harness.suite.summary_tables import finished, render, summarize, summary_table
from harness.training.fit import run_fit
from harness.training.scored_share import PartialSplitWarning, partial_split_message
from reports.contracts.fit_folder import FitRunFolder
from reports.contracts.suite_results import METRIC_COLUMNS, PARTIAL_NOTE
from reports.site.training_figures import accuracy_by_length
from reports.site.training_page import length_rows, partial_runs, summary_rows
from tests.harness.training.test_fit import tiny_run

# TREC's fixture: 12 dev and 30 test questions, in batches of 4 sorted by length
SAID = (
    "the dev scores are of the shortest 33.3% of the dev sentences "
    "(--trainer.limit_val_batches 0.5): not whole-split scores (recorded as dev_scored_share)"
)


def partial_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, PartialSplitWarning)]


@pytest.mark.slow  # two tiny fits
def test_a_fit_on_part_of_dev_records_its_share_and_says_so_once(
    trec_dir: Path, tmp_path: Path
) -> None:
    limited = {"trainer__limit_val_batches": 0.5, "data__eval_batch_size": 4}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics = run_fit(tiny_run(trec_dir, tmp_path / "part", **limited))
    # one batch of three: the 4 shortest of 12 questions (the batches' share would say 1/3 too)
    assert metrics["dev_scored_share"] == pytest.approx(4 / 12)
    assert metrics["test_scored_share"] == 1.0
    assert partial_warnings(caught) == [SAID]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics = run_fit(tiny_run(trec_dir, tmp_path / "whole", data__eval_batch_size=4))
    assert (metrics["dev_scored_share"], metrics["test_scored_share"]) == (1.0, 1.0)
    assert partial_warnings(caught) == []


def test_the_message_names_each_split_and_option_and_a_command_says_each_once() -> None:
    limits = {"limit_val_batches": 0.5, "limit_test_batches": 3}
    said = partial_split_message({"dev": 0.5, "test": 0.4}, limits)
    assert said == (
        "the dev and test scores are of the shortest 50% of the dev and the shortest 40% of the "
        "test sentences "
        "(--trainer.limit_val_batches 0.5, --trainer.limit_test_batches 3): not whole-split "
        "scores (recorded as dev_scored_share, test_scored_share)"
    )
    assert partial_split_message({"dev": 1.0, "test": 1.0}, limits) is None
    other = partial_split_message({"dev": 1.0, "test": 0.25}, limits)
    assert other is not None and other.startswith(
        "the test scores are of the shortest 25% of the test"
    )

    def shown(messages: list[str]) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for message in messages:
                warnings.warn(PartialSplitWarning(message), stacklevel=1)
        lines = [warnings.formatwarning(w.message, w.category, w.filename, 0) for w in caught]
        return [line for line in lines if line]

    hide_lightning_tips()  # a suite: three runs of one task, one of another
    assert shown([said, said, other, said]) == [f"warning: {said}\n", f"warning: {other}\n"]


def test_tables_and_pages_mark_a_score_of_part_of_its_split() -> None:
    assert {"dev_scored_share", "test_scored_share"} <= set(METRIC_COLUMNS)
    results = pd.DataFrame(
        {
            "task": ["trec"] * 3,
            "encoder": ["multi_cnn", "multi_cnn", "bilstm"],
            "replicate": ["seed0", "seed1", "seed0"],
            "status": ["ok"] * 3,
            "dev_acc": [0.5, 0.7, 0.6],
            "test_acc": [0.4, 0.6, 0.8],
            "dev_scored_share": [0.5, 1.0, 1.0],
            "test_scored_share": [1.0, 1.0, None],  # recorded before 2026-11-30: unmarked
        }
    )
    runs = finished(results).groupby(["task", "encoder"], sort=True).size()
    table = summary_table(summarize(results), runs)
    dev, test = table.header.index("dev_acc"), table.header.index("test_acc")
    assert [(row[dev], row[test]) for row in table.rows] == [
        ("60.0", "80.0"),  # bilstm
        ("60.0 (14.1) p", "50.0 (14.1)"),
    ]
    assert PARTIAL_NOTE in table.notes
    # outside check 5y of #56: the loaders sort dev and test by length; the part is the short end
    assert "part of the split only, its shortest sentences" in PARTIAL_NOTE
    header, rows = summary_rows(results)
    dev, test = header.index("dev acc (%)"), header.index("test acc (%)")
    assert [(row[dev], row[test]) for row in rows] == [
        ("60.0", "80.0"),
        ("60.0 (14.1) p", "50.0 (14.1)"),
    ]
    assert partial_runs(results) == ["trec / multi_cnn / seed0 (dev 50.0%)"]


def test_a_paper_table_marks_a_test_score_of_part_of_the_test_split() -> None:
    from harness.suite.summary_tables import PAPER_TABLES, comparison

    spec = next(spec for spec in PAPER_TABLES if spec.name == "mtsa_table5")
    task = spec.columns[0].task
    results = pd.DataFrame(
        {
            "task": [task],
            "encoder": ["multi_cnn"],
            "replicate": ["seed0"],
            "status": ["ok"],
            "test_acc": [0.5],
            "test_scored_share": [0.3],
        }
    )
    table = render(spec, comparison(summarize(results), spec))
    assert table.rows[0][2] == "50.0 p" and PARTIAL_NOTE in table.notes


@pytest.mark.slow  # a tiny fit
def test_the_predictions_of_a_fit_on_part_of_test_are_of_the_sentences_it_scored(
    trec_dir: Path, tmp_path: Path
) -> None:
    """Outside check 54l item 2: test_acc was the shortest half's, test_predictions.csv (and the
    page's accuracy by length, unmarked) held every test row."""
    limited = {"trainer__limit_test_batches": 0.5, "data__eval_batch_size": 4}
    out = tmp_path / "part"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metrics = run_fit(tiny_run(trec_dir, out, **limited))
    predictions = FitRunFolder(out).read_predictions()
    # 4 batches of 8: the 16 shortest of 30 questions
    assert metrics["test_scored_share"] == pytest.approx(16 / 30)
    assert len(predictions) == 16
    scored = (predictions["label"] == predictions["prediction"]).mean()
    assert scored == pytest.approx(metrics["test_acc"])
    results = pd.DataFrame(
        {
            "task": ["trec"],
            "encoder": ["multi_cnn"],
            "replicate": ["seed0"],
            "status": ["ok"],
            "test_acc": [metrics["test_acc"]],
            "test_scored_share": [metrics["test_scored_share"]],
        }
    )
    _, rows = length_rows(
        accuracy_by_length({("trec", "multi_cnn", "seed0"): predictions}), results
    )
    assert all(cell.endswith(" p") for cell in rows[0][2:])
    _, whole = length_rows(
        accuracy_by_length({("trec", "multi_cnn", "seed0"): predictions}),
        results.assign(test_scored_share=1.0),
    )
    assert not any(cell.endswith(" p") for cell in whole[0][2:])


def test_a_cell_of_no_value_carries_no_mark() -> None:
    """Outside check 54l item 3: tables.md's Suite table read '– p' under test_pearson,
    test_spearman and test_mse of classification tasks scored on part of test."""
    results = pd.DataFrame(
        {
            "task": ["trec", "sick_r"],
            "encoder": ["multi_cnn"] * 2,
            "replicate": ["seed0"] * 2,
            "status": ["ok"] * 2,
            "test_acc": [0.5, None],
            "test_pearson": [None, 0.7],
            "test_scored_share": [0.5, 0.5],
        }
    )
    runs = finished(results).groupby(["task", "encoder"], sort=True).size()
    table = summary_table(summarize(results), runs)
    acc, pearson = table.header.index("test_acc"), table.header.index("test_pearson")
    by_task = {row[0]: (row[acc], row[pearson]) for row in table.rows}
    assert by_task == {"sick_r": ("–", "0.7000 p"), "trec": ("50.0 p", "–")}
    header, rows = summary_rows(results)
    acc, pearson = header.index("test acc (%)"), header.index("test r")
    assert {row[0]: (row[acc], row[pearson]) for row in rows} == {
        "sick_r": ("–", "0.7000 p"),
        "trec": ("50.0 p", "–"),
    }


def test_a_pair_tasks_partial_split_says_pairs_by_total_length() -> None:
    """Outside check 6y, item 4: SICK with ``--trainer.limit_test_batches 2`` said "the shortest
    0.649% of the test sentences"; its loaders sort pairs by both sentences' tokens."""
    said = partial_split_message({"test": 0.00649}, {"limit_test_batches": 2}, pairs=True)
    assert said is not None
    assert "the shortest 0.649% of the test pairs (by total length) (--trainer" in said
    assert "pair task" in PARTIAL_NOTE and "pairs by total length" in PARTIAL_NOTE
