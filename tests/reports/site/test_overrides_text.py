"""What a suite page says of the options its runs were given (``reports.site.overrides_text``):
outside check of #56, item 4, the page read ``Budget overrides: ...
trainer.callbacks=["Namespace(class_path='lightning.pytorch.callbacks.EarlyStopping', ...)"],
... optimizer.init_args={'lr': 0.05}``: a Python repr, and an optimizer called a budget."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reports.site import training_page
from reports.site.discover import discover
from reports.site.overrides_text import overrides_text

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "suite-tiny"
EARLY_STOPPING = "lightning.pytorch.callbacks.EarlyStopping"
OVERRIDES = {
    "trainer.callbacks": [
        {"class_path": EARLY_STOPPING, "init_args": {"monitor": "val_loss", "patience": 2}},
        {"class_path": "LearningRateMonitor"},
    ],
    "run.early_stopping_patience": 0,
    "optimizer.class_path": "torch.optim.SGD",
    "optimizer.init_args": {"lr": 0.05},
    "model.encoder_options": {"block_len": 4},
    "trainer.max_steps": 2,
    "limit_train_batches": 2,  # a manifest before 2026-11: the budget's bare keys
}


def test_the_budget_is_apart_and_classes_read_as_their_calls() -> None:
    budget, options = overrides_text(OVERRIDES)
    assert budget == {"trainer.max_steps": "2", "limit_train_batches": "2"}
    assert options == {
        "trainer.callbacks": f"[{EARLY_STOPPING}(monitor=val_loss, patience=2), "
        "LearningRateMonitor()]",
        "run.early_stopping_patience": "0",
        "optimizer": "torch.optim.SGD(lr=0.05)",
        "model.encoder_options": "{block_len: 4}",
    }


@pytest.mark.slow  # draws the suite's figures
def test_the_suite_page_says_each_option_as_data(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    manifest = json.loads((suite / "manifest.json").read_text())
    (suite / "manifest.json").write_text(json.dumps({**manifest, "overrides": OVERRIDES}))
    (run,) = discover([suite])
    training_page.build_suite(run, tmp_path / "page")
    html = " ".join((tmp_path / "page" / "index.html").read_text().split())
    assert "Budget of every run: trainer.max_steps=2, limit_train_batches=2." in html
    assert (
        f"Options of every run: trainer.callbacks=[{EARLY_STOPPING}(monitor=val_loss, "
        "patience=2), LearningRateMonitor()], run.early_stopping_patience=0, "
        "optimizer=torch.optim.SGD(lr=0.05), model.encoder_options={block_len: 4}."
    ) in html
    assert "Namespace" not in html and "Budget overrides" not in html
