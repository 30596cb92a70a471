"""A fit whose options let no validation run within its budget scores its last weights and
says why no validation ran (issue 54, leftover): ``--trainer.check_val_every_n_epoch 5`` over
``--trainer.max_epochs 2``, or ``--trainer.val_check_interval 3`` counted over epochs
(``check_val_every_n_epoch null``) of one batch under ``max_steps 2``, warned "before its first
validation (a budget inside the first epoch)" after whole epochs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from harness.training.fit import run_fit
from tests.harness.training.test_fit import tiny_run

SCORED = "the dev and test scores are those of the last weights, not the best on dev"
CASES = [
    ({"trainer__max_steps": 2}, "2 step(s) in 0 whole epoch(s)", "due at the first epoch's end"),
    (
        {"trainer__check_val_every_n_epoch": 5, "trainer__limit_train_batches": 2},
        "4 step(s) in 2 whole epoch(s)",
        "as --trainer.check_val_every_n_epoch 5 set it",
    ),
    (
        {
            "trainer__val_check_interval": 3,
            "trainer__check_val_every_n_epoch": None,
            "trainer__limit_train_batches": 1,
            "trainer__max_steps": 2,
        },
        "2 step(s) in 2 whole epoch(s)",
        "as --trainer.val_check_interval 3 and --trainer.check_val_every_n_epoch null set it",
    ),
]


@pytest.mark.slow  # three tiny fits
@pytest.mark.parametrize(("overrides", "ran", "when"), CASES, ids=["steps", "every", "interval"])
def test_a_fit_that_never_validated_says_why_and_scores_its_last_weights(
    overrides: dict, ran: str, when: str, trec_dir: Path, tmp_path: Path
) -> None:
    said = f"training ended after {ran}, before its first validation ({when}): {SCORED}"
    with pytest.warns(UserWarning) as caught:
        metrics = run_fit(tiny_run(trec_dir, tmp_path / "run", **overrides))
    assert said in [str(warning.message) for warning in caught]
    assert metrics["best_checkpoint"] == "last.ckpt"  # no best on dev: the weights scored
    assert isinstance(metrics["dev_acc"], float) and isinstance(metrics["test_acc"], float)
    with (tmp_path / "run" / "curve.csv").open() as rows:
        assert not any(row.get("val_acc") for row in csv.DictReader(rows))
