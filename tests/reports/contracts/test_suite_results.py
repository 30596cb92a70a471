"""The suite rows' contract: one rule says whether a run's time was contended, and every table,
page and figure that marks a time reads it (issue 55.4: three rules disagreed on ``"True"``)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.suite.summary_tables import summarize
from reports.contracts.suite_results import (
    LEGACY_MARK,
    contended,
    is_contended,
    legacy_epoch_time,
)
from reports.site.cost_figures import task_points
from reports.site.training_page import summary_rows

TRUE = [1, 1.0, True, "1", "1.0", "true", "True", " TRUE "]
FALSE = [0, 0.0, False, "0", "", "false", None, math.nan]


@pytest.mark.parametrize("flag", TRUE)
def test_a_recorded_flag_that_says_contended(flag: object) -> None:
    assert is_contended(flag)


@pytest.mark.parametrize("flag", FALSE)
def test_a_recorded_flag_that_does_not(flag: object) -> None:
    assert not is_contended(flag)


def runs(flag: object) -> pd.DataFrame:
    """Two finished runs of one cell, the second's training epochs timed under ``flag``."""
    return pd.DataFrame(
        {
            "task": ["trec", "trec"],
            "encoder": ["disan", "disan"],
            "replicate": [0, 1],
            "status": ["ok", "ok"],
            "train_time_per_epoch_s": [10.0, 12.0],
            "train_epochs_timed": [3, 3],
            "train_contended": [0, flag],
            "test_acc": [0.9, 0.91],
            "peak_train_mem_mb": [100.0, 100.0],
        }
    )


@pytest.mark.parametrize("flag", [*TRUE, *FALSE[:-2]])
def test_the_suite_tables_the_site_and_the_cost_figure_mark_the_same_runs(flag: object) -> None:
    frame = runs(flag)
    expected = is_contended(flag)
    assert contended(frame, "train_time_per_epoch_s").tolist() == [False, expected]
    summary = summarize(frame).set_index("metric")
    assert (float(summary.loc["train_contended", "mean"]) > 0) == expected
    header, rows = summary_rows(frame)
    cell = rows[0][header.index(next(h for h in header if "epoch" in h))]
    assert cell.endswith(" c") == expected
    (point,) = task_points(frame, ("test_acc", "test accuracy", 100.0))
    assert point.contended == expected


def test_a_time_per_epoch_recorded_before_train_epochs_timed_is_marked_o() -> None:
    """Runs recorded before 2026-11-30 have no ``train_epochs_timed``: their time per epoch may
    average in an epoch a step budget ended inside, and was shown as any other (issue 56)."""
    frame = runs(0)
    frame["train_epochs_timed"] = [3, None]  # the second run's row came from an older results file
    assert legacy_epoch_time(frame).tolist() == [False, True]
    assert legacy_epoch_time(frame.drop(columns="train_epochs_timed")).tolist() == [True, True]
    assert not legacy_epoch_time(frame.drop(columns="train_time_per_epoch_s")).any()
    for rows, marked in ((frame, True), (runs(0), False)):
        header, cells = summary_rows(rows)
        cell = cells[0][header.index(next(h for h in header if "epoch" in h))]
        assert cell.endswith(LEGACY_MARK) == marked, cell
