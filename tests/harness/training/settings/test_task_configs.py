"""Each encoder trains with its own paper's settings, pinned here from the papers' words.

- Bi-BloSAN §4.4 (Table 6, every row but MTSA's): "We minimize it by Adam with training batch
  size of 32 (except DiSAN, which uses batch size of 16 ...)", "we decrease the dropout keep
  probability and the L2 regularization weight decay factor gamma to 0.6 and 10^-4".
- MTSA Appendix B (Table 5's MTSA row): "For CR, MPQA and SUBJ datasets, we set pkp = 0.5 and
  gamma = 10^-4 ... we apply attention dropout with keep probability of 0.8 to CR and MPQA ...
  use Adam"; "For TREC ... pkp = 0.5 and gamma = 10^-4 and do not apply the attention dropout
  ... Adadelta"; "For SST-5 ... pkp = 0.7 and gamma = 10^-4 ... Adadelta".
- Budgets are epochs decided by early stopping on dev, never optimizer steps (a step cap made
  DiSAN, at batch 16, see half the examples of the others).
"""

from __future__ import annotations

import pytest

from datamodules import tasks
from harness.training.settings.task_configs import (
    CONFIG_PACKAGE,
    task_defaults,
    task_option_problems,
)

TABLE_6 = ("cr", "mpqa", "subj", "trec", "sst1", "sst2")
MTSA_APPENDIX_B = {
    "cr": {"model.dropout": 0.5, "model.optimizer": "adam", "attn_dropout": 0.2},
    "mpqa": {"model.dropout": 0.5, "model.optimizer": "adam", "attn_dropout": 0.2},
    "subj": {"model.dropout": 0.5, "model.optimizer": "adam", "attn_dropout": None},
    "trec": {"model.dropout": 0.5, "model.optimizer": "adadelta", "attn_dropout": None},
    "sst1": {"model.dropout": 0.3, "model.optimizer": "adadelta", "attn_dropout": None},
    "sst2": {"model.dropout": 0.3, "model.optimizer": "adadelta", "attn_dropout": None},  # SST-5's
}


@pytest.mark.parametrize("task", TABLE_6)
@pytest.mark.parametrize("encoder", ["bilstm", "multi_cnn", "multi_head", "disan", "bi_blosan"])
def test_table_6_rows_use_bi_blosan_section_4_4(task: str, encoder: str) -> None:
    values = task_defaults(task, encoder)
    assert values["model.optimizer"] == "adam"
    assert values["model.dropout"] == pytest.approx(1 - 0.6)
    assert values["model.weight_decay"] == pytest.approx(1e-4)
    assert values["data.batch_size"] == (16 if encoder == "disan" else 32)


@pytest.mark.parametrize("task", TABLE_6)
def test_mtsa_uses_its_own_appendix_b(task: str) -> None:
    values = task_defaults(task, "mtsa")
    wanted = MTSA_APPENDIX_B[task]
    assert values["model.dropout"] == pytest.approx(wanted["model.dropout"])
    assert values["model.optimizer"] == wanted["model.optimizer"]
    assert values["model.weight_decay"] == pytest.approx(1e-4)
    options = values.get("model.encoder_options") or {}
    assert options.get("attn_dropout") == wanted["attn_dropout"]


@pytest.mark.parametrize("task", TABLE_6)
@pytest.mark.parametrize("encoder", ["bilstm", "disan", "bi_blosan", "mtsa"])
def test_no_budget_is_counted_in_optimizer_steps(task: str, encoder: str) -> None:
    assert task_defaults(task, encoder).get("trainer.max_steps", -1) == -1


def test_the_tasks_are_the_task_registrys_and_each_has_one_config() -> None:
    """One list of tasks (issue 55.5): a task is declared in ``datamodules.tasks`` only; its
    training settings are the YAML named after it, and no YAML names a task not declared."""
    from importlib import resources

    files = [f.name for f in resources.files(CONFIG_PACKAGE).iterdir() if f.name.endswith(".yaml")]
    assert sorted(name.removesuffix(".yaml") for name in files) == sorted(tasks.list_tasks())


def test_a_task_no_longer_registered_is_unknown_whatever_yaml_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The YAML files are no second list of tasks: a task the registry lacks is refused by
    name, even though its YAML ships."""
    monkeypatch.setattr(tasks, "_TASKS", {k: v for k, v in tasks._TASKS.items() if k != "mr"})
    (problem,) = task_option_problems("--tasks", ["mr"])
    assert problem.startswith("--tasks mr: expected one of") and ", mr," not in problem
