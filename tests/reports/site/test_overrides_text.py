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
FIT = Path(__file__).resolve().parents[1] / "fixtures/suite-sst2-contended/runs/sst2/bilstm/seed0"
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


@pytest.mark.slow  # draws the run's figures
def test_the_fit_page_says_a_class_entry_of_its_config_as_the_suite_page_does(
    tmp_path: Path,
) -> None:
    """The fit page's config table showed ``trainer.callbacks`` and ``optimizer`` as Python
    reprs (``[{'class_path': 'lightning.pytorch.callbacks.EarlyStopping', 'init_args': ...}]``)
    after the suite page was fixed; one function says a value for both pages."""
    fit = tmp_path / "fit"
    shutil.copytree(FIT, fit)
    metrics = json.loads((fit / "metrics.json").read_text())
    metrics["config"]["trainer"]["callbacks"] = OVERRIDES["trainer.callbacks"]
    metrics["config"]["optimizer"] = {"class_path": "torch.optim.SGD", "init_args": {"lr": 0.05}}
    (fit / "metrics.json").write_text(json.dumps(metrics))
    (run,) = discover([fit])
    training_page.build_fit(run, tmp_path / "page")
    html = " ".join((tmp_path / "page" / "index.html").read_text().split())
    callbacks = f"[{EARLY_STOPPING}(monitor=val_loss, patience=2), LearningRateMonitor()]"
    assert f"<dt>trainer.callbacks</dt><dd>{callbacks}</dd>" in html
    assert "<dt>optimizer</dt><dd>torch.optim.SGD(lr=0.05)</dd>" in html
    assert "class_path" not in html and "Namespace" not in html
