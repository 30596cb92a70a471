"""The dropout study's answer as committed in docs/studies/dropout-trec, against a rerun at a tiny
budget (the trec fixture, MTSA at 4 features, 3 epochs of 2 batches, one trial).

What a small run can check honestly is the answer's shape, not its numbers: the study, its
objective, its parameters and their ranges, the notes (its pruner), the summary's keys and the
trials' columns: a document generated from a run matches what the code writes (any column the
trials gain or lose fails this test until the study is run again). The committed numbers cannot
be rerun anywhere: the study's TPE sampler is not seeded (``harness.studies.dropout.plan``), so
even the real data and budget sample other dropout values, and its six trials of 60 steps are
noise, not a dropout for TREC (docs/studies.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.studies.dropout import ATTN_KEEP_RANGE, KEEP_RANGE
from reports.contracts.study import (
    CONTENDED_COLUMN,
    GRANTED_COLUMN,
    LOAD_COLUMNS,
    TRIAL_ENVIRONMENT,
    StudyFolder,
)

COMMITTED = StudyFolder(Path(__file__).resolve().parents[3] / "docs" / "studies" / "dropout-trec")
RANGES = {"keep_prob": KEEP_RANGE, "attn_keep_prob": ATTN_KEEP_RANGE}
# where each trial ran and what CPU its epochs got (issue 56 leftovers: the study page had none)
RECORD = [CONTENDED_COLUMN, GRANTED_COLUMN, *LOAD_COLUMNS]
RECORD += [f"user_attrs_{key}" for key in TRIAL_ENVIRONMENT]


def answer_shape(folder: StudyFolder) -> dict:
    """What a dropout study answers, without its numbers."""
    summary = folder.read_summary()
    trials = folder.read_trials()
    (best,) = summary["best"]
    return {
        "study": summary["study"],
        "objectives": summary["objectives"],
        "notes": summary["notes"],
        "summary_keys": sorted(summary),
        "best_params": sorted(best["params"]),
        "states": set(trials["state"]) <= {"COMPLETE", "PRUNED"},
        "columns": set(trials.columns),
    }


def in_ranges(folder: StudyFolder) -> bool:
    """Every trial's parameters lie in the study's ranges."""
    trials = folder.read_trials()
    return all(
        trials[f"params_{name}"].between(low, high).all() for name, (low, high) in RANGES.items()
    )


@pytest.mark.slow  # one MTSA fit of 6 steps, in process
def test_a_tiny_rerun_answers_in_the_committed_shape(tmp_path: Path, trec_dir: Path) -> None:
    out = tmp_path / "dropout-trec"
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "mtsa", "--trials", "1"]
    argv += ["--max-epochs", "3", "--limit-train-batches", "2", "--data-dir", str(trec_dir)]
    argv += ["--embeddings", str(trec_dir / "glove.txt"), "--model.hidden_dim", "4"]
    argv += ["--storage", f"sqlite:///{tmp_path / 'study.db'}", "--out", str(out)]
    assert main(argv) == 0
    assert answer_shape(StudyFolder(out)) == answer_shape(COMMITTED)
    assert in_ranges(StudyFolder(out)) and in_ranges(COMMITTED)
    assert StudyFolder(out).read_trials()[RECORD].notna().all().all()


def test_every_committed_trial_says_where_it_ran_and_what_cpu_it_got() -> None:
    """Issue 56 leftovers: the committed trials.csv lacked the contention columns the code
    writes (it predated them); the study was run again."""
    assert COMMITTED.read_trials()[RECORD].notna().all().all()


def test_the_committed_best_trial_is_the_best_of_its_trials() -> None:
    trials = COMMITTED.read_trials()
    best = int(trials.loc[trials["value_dev_acc"].idxmax(), "number"])
    assert COMMITTED.read_summary()["best"][0]["number"] == best
