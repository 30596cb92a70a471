"""The study page's trials as a reader needs them: an interrupted trial is not a failure,
durations are seconds, and trial axes count whole trials (on e81e6e0: FAIL, ``0 days
00:00:30.426187`` and ticks at 0.5)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from reports.site.study_page import history_figure, readable_trials


def test_an_interrupted_trial_and_durations_read_as_they_are() -> None:
    trials = pd.DataFrame(
        {
            "number": [0, 1, 2],
            "state": ["COMPLETE", "FAIL", "FAIL"],
            "duration": ["0 days 00:00:30.426187", "0 days 00:01:02.5", None],
            "user_attrs_interrupted": [None, True, None],
        }
    )
    shown = readable_trials(trials)
    assert list(shown["state"]) == ["COMPLETE", "INTERRUPTED", "FAIL"]
    assert list(shown["duration"]) == ["30.4 s", "62.5 s", "–"]
    assert list(trials["state"]) == ["COMPLETE", "FAIL", "FAIL"]  # the data is not changed


def test_the_history_counts_whole_trials() -> None:
    trials = pd.DataFrame({"number": [0, 1, 2], "state": ["COMPLETE"] * 3, "v": [3.0, 1.0, 2.0]})
    figure = history_figure(trials, "v", "minimize")
    ticks = figure.axes[0].get_xticks()
    assert len(ticks) >= 2 and all(float(tick).is_integer() for tick in ticks)
