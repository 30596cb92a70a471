"""fit's messages for bad values, as an outside check of issue 56 (items 10-14) found them: every
problem of a config file, an optimizer and its scheduler on its own line, in sanbench's words,
named as the user wrote it (a flag, or ``--config FILE: KEY``), nothing created."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines

FIXTURES = Path(__file__).parents[3] / "datamodules" / "fixtures"
BASE = ["fit", "--task", "sst2", "--encoder", "multi_cnn", "--data-dir", str(FIXTURES / "kim2014")]
STEP_LR = ["--lr_scheduler", "StepLR"]
HUGE = "1" * 5000  # beyond Python's 4300 digits of int(str)


def refused(words: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The problem lines of a fit refused with exit 2 (before the pointer to its help), run in
    the current folder, which it leaves as it was."""
    before = sorted(os.listdir())
    status = main([*BASE, "--out", "x1", *words])
    err = capsys.readouterr().err
    assert status == 2, err
    assert sorted(os.listdir()) == before
    return problem_lines(err, "fit")


def said(lines: list[str], *expected: str) -> None:
    """Each of ``expected`` begins a line of its own (after ``sanbench fit: ``)."""
    for text in expected:
        found = [line for line in lines if line.startswith(f"sanbench fit: {text}")]
        assert len(found) == 1, (text, lines)


def test_every_wrong_value_of_a_config_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 1: ``--config m.yaml`` named only its first wrong value; flags name them all."""
    os.chdir(tmp_path)
    Path("m.yaml").write_text("model: {hidden_dim: -3, dropout: 2}\ndata: {batch_size: -3}\n")
    lines = refused(["--config", "m.yaml"], capsys)
    said(
        lines,
        "--config m.yaml: model.hidden_dim -3: expected a positive integer",
        "--config m.yaml: model.dropout 2: expected a number in [0, 1]",
        "--config m.yaml: data.batch_size -3: expected a positive integer",
    )
    assert len(lines) == 3, lines


def test_every_wrong_value_of_a_piped_config_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    """Item 1, through a pipe (``--config <(printf ...)``)."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"model: {dropout: 0.3, hidden_dim: 0}\ndata: {batch_size: 1_000}\n")
    os.close(write_end)
    piped = f"/dev/fd/{read_end}"
    status = main([*BASE, "--out", "x1", "--config", piped])
    os.close(read_end)
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert status == 2, lines
    said(
        lines,
        f"--config {piped}: model.hidden_dim 0: expected a positive integer",
        f"--config {piped}: data.batch_size 1_000: write 1000",
    )
    assert len(lines) == 2, lines


def test_a_config_files_optimizer_problems_are_each_named_by_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 2: a misspelled argument was called ``--optimizer.momentm`` and named alone."""
    os.chdir(tmp_path)
    Path("opt.yaml").write_text(
        "optimizer: {class_path: torch.optim.SGD, init_args: {lr: 0.1, momentm: 0.9}}\n"
        "model: {dropout: 7}\n"
    )
    lines = refused(["--config", "opt.yaml"], capsys)
    said(
        lines,
        "--config opt.yaml: optimizer.init_args.momentm: torch.optim.SGD takes no argument "
        "momentm (did you mean momentum?)",
        "--config opt.yaml: model.dropout 7: expected a number in [0, 1]",
    )
    assert len(lines) == 2, lines


def printed_config(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``fit --print_config > path``: a file whose ``optimizer:`` is null (its ``out`` set: a
    file without one is refused for it too)."""
    assert main([*BASE, "--out", "x1", "--print_config"]) == 0
    path.write_text(capsys.readouterr().out)
    assert "\noptimizer: null\n" in path.read_text()


def test_an_optimizer_argument_given_as_a_flag_is_not_blamed_on_the_config_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 3: ``--config fit.yaml --optimizer.lr 0.1`` said "--config fit.yaml: optimizer.lr
    needs --config fit.yaml: optimizer CLASS"."""
    os.chdir(tmp_path)
    printed_config(tmp_path / "fit.yaml", capsys)
    lines = refused(["--config", "fit.yaml", "--optimizer.lr", "0.1"], capsys)
    said(lines, "--optimizer.lr needs --optimizer CLASS (e.g. torch.optim.SGD)")
    assert len(lines) == 1 and "fit.yaml" not in lines[0], lines


@pytest.mark.parametrize(
    "before",
    [["--config", "fit.yaml"], [], ["--optimizer", "torch.optim.SGD"]],
    ids=["after-a-config", "alone", "with-its-class"],
)
def test_an_optimizer_argument_of_thousands_of_digits_is_named_by_its_flag(
    before: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 3: it was called ``--config fit.yaml: optimizer null...``, ``--optimizer`` or
    ``--optimizer torch.optim....`` (5000 digits)."""
    os.chdir(tmp_path)
    printed_config(tmp_path / "fit.yaml", capsys)
    lines = refused([*before, "--optimizer.lr", HUGE], capsys)
    said(lines, f"--optimizer.lr {HUGE[:12]}... (5000 digits): far beyond any value it takes")
    assert len(lines) == 1, lines


def test_each_optimizer_and_scheduler_problem_is_its_own_line_in_sanbenchs_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 2: a refused optimizer was torch's first reason alone ("torch.optim.SGD refuses
    them: Invalid learning rate: -0.1"); momentum -1 and step_size 0 were never named."""
    os.chdir(tmp_path)
    words = ["--optimizer", "SGD", "--optimizer.lr", "-0.1", "--optimizer.momentum", "-1"]
    words += ["--lr_scheduler", "StepLR", "--lr_scheduler.step_size", "0"]
    lines = refused([*words, "--model.hidden_dim", "0"], capsys)
    said(
        lines,
        "--model.hidden_dim 0: expected a positive integer",
        "--optimizer.lr -0.1: expected a positive learning rate",
        "--optimizer.momentum -1: expected 0 or more",
        "--lr_scheduler.step_size 0: torch.optim.lr_scheduler.StepLR divides by it; expected a "
        "positive integer",
    )
    assert len(lines) == 4 and not any("Invalid" in line for line in lines), lines


def test_a_config_files_scheduler_is_judged_beside_its_refused_optimizer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 2: the scheduler's ``step_size: 0`` was not named beside the optimizer's typo."""
    os.chdir(tmp_path)
    Path("opt.yaml").write_text(
        "optimizer: {class_path: torch.optim.SGD, init_args: {lr: -1, momentm: 0.9}}\n"
        "lr_scheduler: {class_path: torch.optim.lr_scheduler.StepLR, init_args: {step_size: 0}}\n"
    )
    lines = refused(["--config", "opt.yaml"], capsys)
    said(
        lines,
        "--config opt.yaml: optimizer.init_args.momentm: torch.optim.SGD takes no argument",
        "--config opt.yaml: optimizer.init_args.lr -1: expected a positive learning rate",
        "--config opt.yaml: lr_scheduler.init_args.step_size 0: torch.optim.lr_scheduler.StepLR "
        "divides by it",
    )
    assert len(lines) == 3, lines


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (
            ["--lr_scheduler", "StepLR", "--lr_scheduler.step_size", "-2"],
            "--lr_scheduler.step_size -2: expected a positive integer",
        ),
        (
            [*STEP_LR, "--lr_scheduler.step_size", "2", "--lr_scheduler.gamma", "0"],
            "--lr_scheduler.gamma 0: expected a positive factor",
        ),
        (
            ["--lr_scheduler", "ExponentialLR", "--lr_scheduler.gamma", "-1"],
            "--lr_scheduler.gamma -1: expected a positive factor",
        ),
        (
            ["--optimizer", "SGD", "--optimizer.lr", "0"],
            "--optimizer.lr 0: expected a positive learning rate (0 trains nothing)",
        ),
        (
            ["--optimizer", "Adam", "--optimizer.betas", "[1.5, 0.9]"],
            "--optimizer.betas [1.5, 0.9]: expected two numbers in [0, 1)",
        ),
    ],
)
def test_a_schedule_that_trains_nothing_is_refused(
    words: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 4: ``step_size -2`` and ``gamma 0`` (torch takes both) trained a full run."""
    os.chdir(tmp_path)
    lines = refused(words, capsys)
    said(lines, expected)
    assert len(lines) == 1, lines


def test_a_config_files_list_value_is_named_by_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 3: a config file's ``data: {batch_size: [1]}`` was called ``--data.batch_size``."""
    os.chdir(tmp_path)
    Path("b.yaml").write_text("data: {batch_size: [1]}\n")
    lines = refused(["--config", "b.yaml"], capsys)
    said(lines, "--config b.yaml: data.batch_size [1]: expected an integer")
    assert len(lines) == 1, lines


def test_a_config_files_callback_monitor_is_named_by_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 3: a config file's callback ``monitor`` typo was called
    ``--trainer.callbacks.monitor``, its scheduler's beside it by the file."""
    os.chdir(tmp_path)
    Path("opt2.yaml").write_text(
        "trainer:\n  callbacks:\n  - class_path: ModelCheckpoint\n"
        "    init_args: {monitor: vall_loss}\n"
        "lr_scheduler:\n  class_path: lightning.pytorch.cli.ReduceLROnPlateau\n"
        "  init_args: {monitor: vall_acc}\n"
    )
    lines = refused(["--config", "opt2.yaml"], capsys)
    said(
        lines,
        "--config opt2.yaml: trainer.callbacks[0].init_args.monitor vall_loss: the model logs "
        "no metric vall_loss",
        "--config opt2.yaml: lr_scheduler.init_args.monitor vall_acc: the model logs no metric",
    )
    assert len(lines) == 2, lines


def test_a_monitor_typo_by_case_gets_the_nearest_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 5: ``Dev_Acc`` listed the names without "did you mean val_acc?"."""
    os.chdir(tmp_path)
    words = ["--trainer.callbacks", "ModelCheckpoint", "--trainer.callbacks.monitor", "Dev_Acc"]
    lines = refused(words, capsys)
    assert len(lines) == 1 and lines[0].endswith("(did you mean val_acc?)"), lines


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (
            ["--data.batch_size", "017"],
            "--data.batch_size 017: expected an integer without a leading 0 (write 17)",
        ),
        (
            ["--optimizer", "SGD", "--optimizer.lr", "017"],
            "--optimizer.lr 017: expected a number without a leading 0 (write 17)",
        ),
        (
            ["--optimizer", "SGD", "--optimizer.lr", "0x10"],
            "--optimizer.lr 0x10: expected a number (write 16)",
        ),
    ],
)
def test_a_flags_integer_follows_the_config_files_rule(
    words: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Item 6: a flag's ``017`` was read as 17 where a config file's is refused; ``0x10`` got
    no plain spelling, as ``1_000`` gets ("write 1000")."""
    os.chdir(tmp_path)
    lines = refused(words, capsys)
    said(lines, expected)
    assert len(lines) == 1, lines


def test_a_config_files_hexadecimal_value_gets_its_plain_spelling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chdir(tmp_path)
    Path("c.yaml").write_text("data: {batch_size: 0x10}\n")
    lines = refused(["--config", "c.yaml"], capsys)
    said(lines, "--config c.yaml: data.batch_size 0x10: expected an integer (write 16)")
