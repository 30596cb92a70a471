"""Reproduction tables from hand-made per-run rows: cells, τ, pairs, gaps and the markdown."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.reproduce.comparison import reproduction
from harness.reproduce.outputs import departures, markdown, task_table
from harness.reproduce.preset import CPU_PRESET, PAPER_PRESET, Preset

# test accuracies (fractions) per (task, encoder): three replicates each
SCORES = {
    ("trec", "bi_blosan"): (0.90, 0.92, 0.94),
    ("trec", "disan"): (0.89, 0.90, 0.93),
    ("trec", "multi_cnn"): (0.80, 0.81, 0.82),
    ("cr", "bi_blosan"): (0.80, 0.78, 0.79),
    ("cr", "disan"): (0.75, 0.74, 0.76),
}


def _finished() -> pd.DataFrame:
    rows = []
    for (task, encoder), values in SCORES.items():
        for number, value in enumerate(values):
            replicate = f"fold{number}" if task == "cr" else f"seed{number}"
            rows.append(
                {"task": task, "encoder": encoder, "replicate": replicate, "test_acc": str(value)}
            )
    return pd.DataFrame(rows)


PRESET = Preset(tasks=("cr", "trec"), encoders=("disan", "bi_blosan", "multi_cnn"))


def test_cells_put_the_papers_numbers_beside_ours() -> None:
    result = reproduction(_finished(), list(PRESET.tasks), list(PRESET.encoders))
    cells = result.cells.set_index(["task", "encoder"])
    trec = cells.loc[("trec", "bi_blosan")]
    assert trec["n"] == 3
    assert trec["ours_mean"] == pytest.approx(92.0)
    assert trec["ours_std"] == pytest.approx(2.0)
    # Bi-BloSAN Table 6, TREC: Bi-BloSAN 94.8 (0.2), DiSAN 94.2 (0.1)
    assert (trec["paper_mean"], trec["paper_std"]) == (94.8, 0.2)
    assert trec["gap"] == pytest.approx(92.0 - 94.8)
    assert cells.loc[("trec", "disan"), "paper_mean"] == 94.2
    # Bi-BloSAN Table 6, CR: DiSAN 84.8 (2.0) and Bi-BloSAN 84.8 (0.9): tied in the paper
    assert cells.loc[("cr", "disan"), "paper_mean"] == 84.8
    assert cells.loc[("cr", "bi_blosan"), "paper_rank"] == 1.5
    # neither table has a Multi-CNN row: ours only, no gap, not in tau
    cnn = cells.loc[("trec", "multi_cnn")]
    assert cnn["ours_rank"] == 3 and math.isnan(cnn["paper_mean"]) and math.isnan(cnn["gap"])
    # a task x encoder without runs stays in the table with n = 0
    assert cells.loc[("cr", "multi_cnn"), "n"] == 0


def test_tau_pairs_and_encoder_gaps() -> None:
    result = reproduction(_finished(), list(PRESET.tasks), list(PRESET.encoders))
    taus = result.taus.set_index("task")
    # TREC: ours bi_blosan > disan, paper 94.8 > 94.2: same order over 2 encoders
    assert taus.loc["trec", "encoders"] == 2 and taus.loc["trec", "tau"] == pytest.approx(1.0)
    # CR: the paper ties the two encoders, so tau-b is undefined
    assert math.isnan(taus.loc["cr", "tau"])
    pairs = result.pairs.set_index(["task", "encoder_a", "encoder_b"])
    # differences 1, 2, 1 (hand-worked in reproduce/test_stats.py): p = 0.057, and Holm-corrected
    # over the fixture's pairs still not separable
    close = pairs.loc[("trec", "bi_blosan", "disan")]
    assert close["p_value"] == pytest.approx(1 - 4 / math.sqrt(18))
    assert not close["ours_separable"]
    # paper 94.8 vs 94.2 differ by 0.6, more than the larger std 0.2
    assert close["paper_within_spread"] is False
    assert pairs.loc[("trec", "bi_blosan", "multi_cnn"), "ours_separable"]
    gaps = result.encoders.set_index("encoder")
    # bi_blosan: TREC 92.0 - 94.8, CR 79.0 - 84.8
    assert gaps.loc["bi_blosan", "tasks"] == 2
    assert gaps.loc["bi_blosan", "mean_gap"] == pytest.approx(((92.0 - 94.8) + (79.0 - 84.8)) / 2)
    assert "multi_cnn" not in gaps.index


def test_markdown_layout_one_table_per_task_and_the_footnote_once() -> None:
    result = reproduction(_finished(), list(PRESET.tasks), list(PRESET.encoders))
    trec = task_table(result, "trec", PRESET)
    # two encoders in the paper's order: 1 of the 2 orders, one-sided p = 1/2
    assert trec.title.startswith(
        "TREC (seeds 0-2): Kendall's τ = 1.00 (one-sided p = 0.500, exact) over 2 encoders"
    )
    assert trec.header[:7] == ["encoder", "runs", "ours", "paper", "gap", "rank ours", "rank paper"]
    assert [row[0] for row in trec.rows] == ["bi_blosan", "disan", "multi_cnn"]
    assert trec.rows[0][1:7] == ["3", "92.0 (2.0)", "94.8 (0.2)", "-2.8", "1", "1"]
    assert trec.rows[0][7] == "disan"  # not separable from disan (p = 0.057)
    assert trec.rows[2][3:5] == ["–", "–"]  # multi_cnn: no paper number
    cr = task_table(result, "cr", PRESET)
    assert cr.title.startswith("CR (folds 0-2 of 10-fold CV)")
    assert cr.rows[0][8] == "disan"  # the paper's two 84.8 are within each other's spread
    facts = {
        "command": "sanbench reproduce",
        "machine": "cpu",
        "sessions": [{"started": "t0", "load_start": "1.00", "load_end": "2.00", "wall_s": 7200}],
    }
    text = markdown(result, PRESET, facts)
    assert text.count("### ") == 3  # CR, TREC, the per-encoder summary
    assert text.index("### CR") < text.index("### TREC") < text.index("### Per encoder")
    assert text.count("[^dep]:") == 1 and text.count("Departures") == 1
    assert "- Wall time: 2.00 h over 1 session(s)\n" in text
    assert "Mean Kendall's τ over the 1 tasks where it is defined: 1.00." in text
    # the text claims only what the tests support: one pair of 2 agreeing is not significant
    assert "none of the 1 tasks" in text
    assert "p = 0.500: no evidence at this budget" in text
    assert "t0: 1.00 -> 2.00" in text


def test_departures_state_the_presets_budget() -> None:
    note = departures(CPU_PRESET, "glove.6B.50d.subset.txt")
    # one width ratio for every encoder: a third of 300, of Multi-CNN's 200 filters
    assert "every encoder at 0.333 of its paper width" in note
    assert "bilstm 100 instead of 300" in note and "multi_cnn 67 instead of 200" in note
    assert f"at most {CPU_PRESET.overrides['trainer.max_epochs']} epochs" in note
    assert "step caps" not in note  # budgets are epochs, never optimizer steps
    assert "first 3 of the 10 folds" in note and "3 seeds per cell instead of 5" in note
    assert "glove.6B.50d.subset.txt vectors" in note
    assert "phrase-level" in note and "TREC" in note
    # the paper preset departs only where the data do
    full = departures(PAPER_PRESET, "glove.6B.300d.txt")
    assert "width" not in full and "folds" not in full and "seeds" not in full
    assert "300d" not in full
