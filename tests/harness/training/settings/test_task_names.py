"""A task as users type it (H14.5): a documented alias trains as its task (``fit --task sst5``
was refused, with 'did you mean sst2?'); the paper's or the dataset's name (``SST-5``,
``sst-5``) is refused with the task it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.training.settings.task_configs import task_defaults, task_option_problems


@pytest.mark.parametrize("task", ["sst5", "mnli"])
def test_an_alias_is_accepted_and_trains_as_its_task(task: str) -> None:
    assert task_option_problems("--data.task", [task]) == []
    canonical = {"sst5": "sst1", "mnli": "multinli"}[task]
    assert task_defaults(task, "disan") == task_defaults(canonical, "disan")


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("SST-5", "sst1"), ("sst-5", "sst1"), ("SST5", "sst1"), ("SST-1", "sst1"), ("TREC", "trec")],
)
def test_a_papers_name_gets_the_task_it_names(typed: str, meant: str) -> None:
    """Refused (a run is recorded by the task's name), with the task it spells."""
    (problem,) = task_option_problems("--data.task", [typed])
    assert problem.startswith(f"--data.task {typed}: expected one of")
    assert problem.endswith(f"(did you mean {meant}?)")
    assert "sst1 (alias sst5)" in problem


def test_an_alias_is_recorded_by_its_tasks_name() -> None:
    """A run's config, a suite's grid and folders say ``sst1`` whether ``sst1`` or ``sst5`` was
    typed (one task, one name in results)."""
    from datamodules.tasks import recorded_task
    from harness.suite.options import SuiteOptions

    assert recorded_task("sst5") == "sst1" and recorded_task("trec") == "trec"
    options = SuiteOptions(tasks="sst5,trec", encoders="disan", out=Path("runs/x"))
    assert options.task_names == ["sst1", "trec"]
