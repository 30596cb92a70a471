"""The reproduction probe's arithmetic: a run's worst case and the preset's wall time."""

from __future__ import annotations

import pytest

from harness.reproduce.preset import Preset
from tools.reproduce_probe import estimate_run_seconds, preset_hours


def test_run_estimate_counts_epochs_and_the_step_cap() -> None:
    # 100 steps/epoch, 10 epochs, no step cap: 1000 steps x 0.02 s + 10 validations x 3 s
    assert estimate_run_seconds(0.02, 3.0, 100, 10, -1) == pytest.approx(50.0)
    # a 250-step cap (MTSA App. B's CV tasks): 250 x 0.02 + 3 epochs begun x 3 s
    assert estimate_run_seconds(0.02, 3.0, 100, 10, 250) == pytest.approx(14.0)
    # two cells of 3 seeds: worker 1 takes seeds 0 and 2 of the 3600 s cell and seed 1 of
    # the 1800 s one (the sorted grid dealt round-robin), worker 2 the rest: 9000 s vs 7200 s
    two = Preset(tasks=("trec",), encoders=("bi_blosan", "mtsa"), seeds=3)
    rows = [
        {"task": "trec", "encoder": "bi_blosan", "estimated_run_s": "3600"},
        {"task": "trec", "encoder": "mtsa", "estimated_run_s": "1800"},
    ]
    assert preset_hours(rows, two, 2) == pytest.approx(9000 / 3600)
    assert preset_hours(rows, two, 1) == pytest.approx(16200 / 3600)
