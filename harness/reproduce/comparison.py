"""Our accuracies beside Bi-BloSAN Table 6 / MTSA Table 5: per task, per encoder, per pair.

From the suite's finished rows (one test accuracy per run) this builds
* ``cells``: task x encoder, ours mean (std) over replicates beside the paper's mean (std),
  the gap (ours - paper) and both ranks;
* ``taus``: per task, Kendall's τ between our ranking and the paper's over the encoders that
  have both numbers, with its one-sided p-value (``pooled_p``: Fisher's combination over tasks);
* ``pairs``: per task, every pair of encoders: paired t-test over shared replicates (ours; the
  corrected resampled t-test over CV folds), its p-value Holm-corrected over every pair of the
  reproduction, and whether the paper's difference is within the larger of its two stds;
* ``encoders``: per encoder, the mean, min and max gap over the tasks with a paper number.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import pandas as pd

from datamodules.datamodule import DEV_FRACTION
from datamodules.tasks import get_task
from harness.reproduce.stats import ALPHA, holm, kendall_tau, paired_test, pooled_p_value
from reports.aggregation import mean_std
from reports.paper_numbers import BI_BLOSAN, MTSA, PaperValue, lookup

# where each task's published number is read, first match wins (MTSA adds its own row)
PAPER_TABLES = ((BI_BLOSAN, "Table 6"), (MTSA, "Table 5"))
METRIC = "test_acc"

CELL_COLUMNS = [
    "task",
    "encoder",
    "n",
    "ours_mean",
    "ours_std",
    "paper_mean",
    "paper_std",
    "gap",
    "ours_rank",
    "paper_rank",
    "paper_source",
]
TAU_COLUMNS = ["task", "encoders", "tau", "p_value", "p_method"]
PAIR_COLUMNS = [
    "task",
    "encoder_a",
    "encoder_b",
    "n_shared",
    "ours_difference",
    "test",
    "p_value",
    "p_holm",
    "ours_separable",
    "paper_difference",
    "paper_within_spread",
]
ENCODER_COLUMNS = ["encoder", "tasks", "mean_gap", "min_gap", "max_gap"]


def paper_value(encoder: str, task: str) -> PaperValue | None:
    """The published accuracy of ``encoder`` on ``task`` (Bi-BloSAN Table 6, else MTSA T5)."""
    for paper, table in PAPER_TABLES:
        value = lookup(paper, table, encoder, task, METRIC)
        if value is not None:
            return value
    return None


def per_run_scores(finished: pd.DataFrame) -> dict[tuple[str, str], dict[str, float]]:
    """``{(task, encoder): {replicate: accuracy in %}}`` from the suite's ``ok`` rows."""
    scores: dict[tuple[str, str], dict[str, float]] = {}
    for row in finished.itertuples(index=False):
        value = pd.to_numeric(getattr(row, METRIC), errors="coerce")
        if pd.notna(value):
            scores.setdefault((row.task, row.encoder), {})[row.replicate] = 100.0 * float(value)
    return scores


def _ranks(values: dict[str, float]) -> dict[str, float]:
    """1 = best; equal values share the mean rank."""
    series = pd.Series(values, dtype=float)
    return series.rank(ascending=False, method="average").to_dict()


@dataclass
class Reproduction:
    """The four tables of the module docstring (columns: ``*_COLUMNS`` above)."""

    cells: pd.DataFrame
    taus: pd.DataFrame
    pairs: pd.DataFrame
    encoders: pd.DataFrame

    @property
    def pooled_p(self) -> float:
        """Fisher's combination of the per-task τ p-values: does the papers' order hold?"""
        return pooled_p_value(self.taus["p_value"].tolist())


def _task_cells(task: str, encoders: list[str], scores: dict) -> list[dict]:
    records = []
    for encoder in encoders:
        ours = mean_std(scores.get((task, encoder), {}).values())
        paper = paper_value(encoder, task)
        mean = ours.mean
        records.append(
            {
                "task": task,
                "encoder": encoder,
                "n": ours.n,
                "ours_mean": mean,
                "ours_std": ours.std,
                "paper_mean": math.nan if paper is None else paper.value,
                "paper_std": math.nan if paper is None or paper.std is None else paper.std,
                "gap": math.nan if paper is None else mean - paper.value,
                "paper_source": "" if paper is None else f"{paper.paper}, {paper.table}",
            }
        )
    ours = {r["encoder"]: r["ours_mean"] for r in records if r["n"]}
    both = {r["encoder"]: r["paper_mean"] for r in records if r["n"] and r["paper_source"]}
    ours_rank, paper_rank = _ranks(ours), _ranks(both)
    for record in records:
        record["ours_rank"] = ours_rank.get(record["encoder"], math.nan)
        record["paper_rank"] = paper_rank.get(record["encoder"], math.nan)
    return records


def test_to_train(task: str) -> float | None:
    """A CV task's test-fold size over its training size (k folds, dev carved from the other
    k - 1); None for a task with fixed splits (its replicates are seeds)."""
    folds = get_task(task).cv_folds
    return 1 / ((folds - 1) * (1 - DEV_FRACTION)) if folds else None


def _task_pairs(task: str, cells: list[dict], scores: dict) -> list[dict]:
    ran = [cell for cell in cells if cell["n"]]
    ran.sort(key=lambda cell: -cell["ours_mean"])
    records = []
    ratio = test_to_train(task)
    for a, b in itertools.combinations(ran, 2):
        test = paired_test(scores[(task, a["encoder"])], scores[(task, b["encoder"])], ratio)
        paper_difference = a["paper_mean"] - b["paper_mean"]
        spread = max(a["paper_std"], b["paper_std"])
        records.append(
            {
                "task": task,
                "encoder_a": a["encoder"],
                "encoder_b": b["encoder"],
                "n_shared": test.n,
                "ours_difference": test.mean_difference,
                "test": test.test,
                "p_value": test.p_value,
                "paper_difference": paper_difference,
                "paper_within_spread": ""
                if math.isnan(paper_difference) or math.isnan(spread)
                else abs(paper_difference) <= spread,
            }
        )
    return records


def reproduction(finished: pd.DataFrame, tasks: list[str], encoders: list[str]) -> Reproduction:
    """Every table of the reproduction from the suite's finished rows (see the module doc)."""
    scores = per_run_scores(finished)
    cells, taus, pairs = [], [], []
    for task in tasks:
        task_cells = _task_cells(task, encoders, scores)
        cells += task_cells
        ranked = [c for c in task_cells if c["n"] and c["paper_source"]]
        tau = kendall_tau([c["ours_mean"] for c in ranked], [c["paper_mean"] for c in ranked])
        taus.append(
            {
                "task": task,
                "encoders": len(ranked),
                "tau": tau.tau,
                "p_value": tau.p_value,
                "p_method": tau.method,
            }
        )
        pairs += _task_pairs(task, task_cells, scores)
    # every pair of every task is one family: Holm keeps any false separation at ALPHA
    for record, adjusted in zip(pairs, holm([r["p_value"] for r in pairs]), strict=True):
        record["p_holm"] = adjusted
        record["ours_separable"] = adjusted < ALPHA  # False for NaN
    cell_frame = pd.DataFrame(cells, columns=CELL_COLUMNS)
    gaps = cell_frame.dropna(subset=["gap"]).groupby("encoder", sort=False)["gap"]
    per_encoder = gaps.agg(tasks="size", mean_gap="mean", min_gap="min", max_gap="max")
    return Reproduction(
        cells=cell_frame,
        taus=pd.DataFrame(taus, columns=TAU_COLUMNS),
        pairs=pd.DataFrame(pairs, columns=PAIR_COLUMNS),
        encoders=per_encoder.reset_index()[ENCODER_COLUMNS],
    )
