"""A budget that trains nothing is refused before any data is read (issue 54.4: ``fit
--trainer.max_steps 0`` exited 0 and saved the untrained model's test accuracy as a result, and a
suite recorded it as an ``ok`` row), in every spelling: ``fit --trainer.*``, a suite's or a
study's ``--trainer.*`` and their own ``--max-steps``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.training.settings.fit_overrides import (
    UNTRAINED_EXPECTED,
    Budget,
    FitSections,
    budget_problems,
)
from tests.harness.fixtures import warm_commands
from tests.harness.problem_lines import problem_lines

SANBENCH = Path(sys.executable).with_name("sanbench")
NOTHING = "trains nothing"
UNTRAINED = [
    ("max_steps", 0),
    ("max_epochs", 0),
    ("limit_train_batches", 0),
    ("limit_train_batches", 0.0),
    ("max_time", "00:00:00:00"),
    ("max_time", {"minutes": 0}),
]


@pytest.mark.parametrize(("key", "value"), UNTRAINED)
def test_each_budget_that_trains_nothing_is_one_line(key: str, value: object) -> None:
    (problem,) = budget_problems({key: value}, lambda name, given: (f"--trainer.{name}", given))
    assert problem.startswith(f"--trainer.{key} ") and NOTHING in problem


@pytest.mark.parametrize(
    "trainer",
    [
        {},
        {"max_steps": -1, "max_epochs": -1, "limit_train_batches": 1.0, "max_time": None},
        {"max_steps": 1, "max_epochs": None, "limit_train_batches": 1, "max_time": "00:00:00:01"},
        {"max_epochs": 30, "limit_train_batches": 0.01, "max_time": {"hours": 2}},
    ],
)
def test_a_budget_that_trains_is_not_refused(trainer: dict) -> None:
    assert budget_problems(trainer, lambda name, given: (name, str(given))) == []


def test_the_two_spellings_of_a_suites_budget_are_both_refused() -> None:
    """A suite's (or study's) ``--trainer.max_steps 0`` was run, its own ``--max-steps 0``
    refused. Both are judged beside the command's other problems (issue 56, F56 item 3), in
    one wording: the suite's and tune's own said "expected a positive integer" (issue 54,
    leftover)."""
    (problem,) = FitSections(trainer={"max_steps": 0}).problems()
    assert problem.startswith(f"--trainer.max_steps 0: {NOTHING}")
    assert Budget(max_steps=0).problems() == [problem.replace("--trainer.max_steps", "--max-steps")]


@pytest.mark.parametrize(
    ("budget", "option"),
    [
        ({"max_steps": 0}, "--max-steps 0"),
        ({"max_epochs": 0}, "--max-epochs 0"),
        ({"limit_train_batches": 0}, "--limit-train-batches 0"),
        ({"limit_train_batches": 0.0}, "--limit-train-batches 0.0"),
    ],
)
def test_a_suites_or_studys_own_budget_that_trains_nothing_says_so_in_fits_words(
    budget: dict, option: str
) -> None:
    """``suite --limit-train-batches 0`` and ``tune --max-steps 0`` lacked the "trains
    nothing" words of fit's spellings (issue 54, leftover); other values keep their words."""
    key = next(iter(budget))
    (problem,) = Budget(**budget).problems()
    assert problem == (
        f"{option}: {NOTHING} (the untrained model would be tested and its scores recorded as a "
        f"result); expected {UNTRAINED_EXPECTED[key]}"
    )
    assert Budget(max_steps=-3, limit_val_batches=-1).problems() == [
        "--max-steps -3: expected a positive integer",
        "--limit-val-batches -1: expected a positive number of batches or a fraction in (0, 1]",
    ]


def refusal(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The one problem line of ``command`` refused for its words, before its help pointer."""
    assert done.returncode == 2, done.stderr
    lines = problem_lines(done.stderr, command)
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.slow  # a sanbench process each
@pytest.mark.parametrize(
    "words",
    [
        ["fit", "--trainer.max_steps", "0"],
        ["fit", "--trainer.max_epochs", "0"],
        ["fit", "--trainer.limit_train_batches", "0.0"],
        ["tune", "--study", "dropout", "--trainer.max_steps", "0"],
    ],
)
def test_the_command_refuses_it_before_reading_any_data(tmp_path: Path, words: list[str]) -> None:
    """``--data-dir`` holds SST-2's files, empty: a command that read data first would find no
    sentence in them (and warn of random vectors) instead of, or beside, the budget. (An empty
    folder is named beside the budget since 929bafd: listing a folder reads no data.)"""
    empty, out = tmp_path / "empty", tmp_path / "out"
    empty.mkdir()
    for split in ("train", "dev", "test"):
        (empty / f"stsa.binary.{split}").touch()
    command, *budget = words
    where = ["--task", "sst2", "--encoder", "multi_cnn", "--data-dir", str(empty)]
    # tune's start-up in a fresh interpreter (warm_commands: each command keeps one such test)
    run = subprocess.run if command == "tune" else warm_commands.run
    done = run(
        [str(SANBENCH), command, *where, "--out", str(out), *budget],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=900,  # the first command of a session may build the CPU tiles
    )
    line = refusal(done, command)
    assert line.startswith(f"sanbench {command}: --") and NOTHING in line, line
    assert not out.exists()


@pytest.mark.slow  # reads the data and builds the model
def test_a_share_of_the_epoch_under_one_batch_is_refused_before_the_run_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``--trainer.limit_train_batches 0.5`` of a one-batch epoch: Lightning raised
    MisconfigurationException inside ``fit`` (an "internal error", exit 1) and left a run folder
    holding ``fit_config.yaml``. Known here only once the data is read (CR's 40 lines would make
    2 batches of 33; the examples left beside the test fold and the dev share make 1), but
    before the folder."""
    from harness.cli import main

    fixtures = Path(__file__).parents[3] / "datamodules" / "fixtures" / "kim2014"
    out = tmp_path / "out"
    words = ["fit", "--task", "cr", "--encoder", "multi_cnn", "--data-dir", str(fixtures)]
    words += ["--out", str(out), "--model.hidden_dim", "4", "--trainer.limit_train_batches", "0.5"]
    assert main([*words, "--data.batch_size", "33"]) == 2
    said = [line for line in capsys.readouterr().err.splitlines() if "limit_train_batches" in line]
    assert said == [
        "sanbench fit: --trainer.limit_train_batches 0.5: trains nothing: 0.5 of the 1 training "
        "batch(es) of an epoch is less than one (Lightning keeps int(share x batches)); expected "
        "a share of at least 1, or a number of batches"
    ]
    assert not out.exists()


@pytest.mark.slow  # reads the data
@pytest.mark.parametrize(
    ("words", "option"),
    [
        (["suite", "--tasks", "sst2", "--encoders", "multi_cnn", "--seeds", "1",
          "--limit-train-batches", "0.5"], "--limit-train-batches"),
        (["tune", "--study", "dropout", "--task", "sst2", "--encoder", "multi_cnn", "--trials",
          "1", "--trainer.limit_train_batches", "0.5"], "--trainer.limit_train_batches"),
    ],
    ids=["suite", "tune"],
)  # fmt: skip
def test_a_suites_or_studys_share_under_one_batch_is_refused_before_its_out(
    tmp_path: Path, capsys: pytest.CaptureFixture, words: list[str], option: str
) -> None:
    """On 12105eb ``suite --limit-train-batches 0.0001`` exited 1 after making ``--out`` with a
    ``failed`` row, and ``tune --trainer.limit_train_batches 0.0001`` exited 2 after trial 0,
    leaving ``.sanbench`` and ``optuna.db``: the share is checked when every file is read,
    before any folder is made, as fit's."""
    from harness.cli import main

    fixtures = Path(__file__).parents[3] / "datamodules" / "fixtures" / "kim2014"
    out = tmp_path / "out"
    assert main([*words, "--data-dir", str(fixtures), "--out", str(out)]) == 2
    said = [line for line in capsys.readouterr().err.splitlines() if option in line]
    assert said == [
        f"sanbench {words[0]}: {option} 0.5: trains nothing: 0.5 of the 1 training batch(es) of "
        "an epoch is less than one (Lightning keeps int(share x batches)); expected a share of "
        "at least 1, or a number of batches"
    ]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # reads the data and builds the model
@pytest.mark.parametrize("where", ["flag", "config", "suite"])
def test_an_overfit_share_under_one_batch_is_named_as_given(
    tmp_path: Path, capsys: pytest.CaptureFixture, where: str
) -> None:
    """Outside check A item 12: ``--trainer.overfit_batches 0.0001`` (or from a config file) was
    refused as '--trainer.limit_train_batches 0.0001: trains nothing', an option not typed,
    and a config file's value not said to be the file's."""
    from harness.cli import main

    fixtures = Path(__file__).parents[3] / "datamodules" / "fixtures" / "kim2014"
    out = tmp_path / "out"
    config = tmp_path / "c.yaml"
    config.write_text("trainer:\n  overfit_batches: 0.5\n")
    given, option = {
        "flag": (["fit", "--trainer.overfit_batches", "0.5"], "--trainer.overfit_batches"),
        "config": (["fit", "--config", str(config)], f"--config {config}: trainer.overfit_batches"),
        "suite": (["suite", "--seeds", "1", "--trainer.overfit_batches", "0.5"],
                  "--trainer.overfit_batches"),
    }[where]  # fmt: skip
    chosen = ["--task", "sst2", "--encoder", "multi_cnn", "--model.hidden_dim", "4"]
    if where == "suite":
        chosen = ["--tasks", "sst2", "--encoders", "multi_cnn"]
    assert main([*given, *chosen, "--data-dir", str(fixtures), "--out", str(out)]) == 2
    said = [line for line in capsys.readouterr().err.splitlines() if "trains nothing" in line]
    # fit judges it from the training file's 12 lines, before reading it (issue 54, leftover)
    counted = (
        "" if where == "suite" else " (the training files' 12 line(s), at most one example each)"
    )
    assert said == [
        f"sanbench {given[0]}: {option} 0.5: trains nothing: 0.5 of "
        f"{'the' if where == 'suite' else 'at most'} 1 training batch(es) of an epoch{counted} is "
        "less than one (Lightning keeps int(share x batches)); expected a share of at least 1, or "
        "a number of batches"
    ]
    assert not out.exists()
