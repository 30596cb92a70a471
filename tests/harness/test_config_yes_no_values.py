"""A command's own yes/no option given a value that is not true or false in a config file
(``overwrite: 5``) is refused as the file writes it, beside every other problem (issue 56,
outside check 9z item 3): it was jsonargparse's "Value not boolean: 5." alone, naming neither
the key nor the file, in every command."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.cli import main
from tests.harness.problem_lines import problem_lines
from tests.harness.refusal_scratch import CFG, drawn, refused, scratch

# each command's yes/no options
YES_NO = {
    "predict": ["overwrite"],
    "encode": ["overwrite"],
    "suite": ["aggregate_only"],
    "profile": ["compile", "strict", "resume", "progress", "report", "predict_only"],
    "reproduce": ["tables_only"],
    "tune": ["prune", "outputs_only"],
}
PAIRS = [(command, option) for command, options in YES_NO.items() for option in options]
NOT_YES_NO = ["5", "-3", "0.5", "maybe", "[true]", "{a: 1}", "[]"]


@drawn(16)
@given(pair=st.sampled_from(PAIRS), value=st.sampled_from(NOT_YES_NO))
def test_a_config_files_value_not_yes_or_no_is_said_as_written(
    pair: tuple[str, str], value: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--config cfg/c.yaml: OPTION VALUE: expected true or false``, and the words' other
    problem beside it; never the parser's "Value not boolean"."""
    command, option = pair
    with scratch(trec_dir, {**CFG, "cfg/c.yaml": f"{option}: {value}\n"}) as root:
        err = refused(root, [command, "--config", "cfg/c.yaml", "--bogus", "1"], capsys)
    lines = [line.removeprefix(f"sanbench {command}: ") for line in problem_lines(err, command)]
    assert "not boolean" not in err, err
    expected = f"--config cfg/c.yaml: {option} {value}: expected true or false"
    assert lines.count(expected) == 1, (expected, lines)
    assert any(line.startswith("unknown option --bogus") for line in lines), lines


@pytest.mark.parametrize(("text", "taken"), [("yes", "true"), ("no", "false"), ("true", "true")])
def test_a_config_files_yes_or_no_is_taken(
    text: str, taken: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The words the flag's value reads as yes or no are taken from a file, as before."""
    with scratch(trec_dir, {**CFG, "cfg/c.yaml": f"aggregate_only: {text}\n"}):
        capsys.readouterr()
        assert main(["suite", "--config", "cfg/c.yaml", "--print_config"]) == 0
    assert f"aggregate_only: {taken}" in capsys.readouterr().out.splitlines()


PRINTED = [
    ("suite", "aggregate_only", "1"),
    ("suite", "aggregate_only", "[]"),
    ("suite", "aggregate_only", "~"),
    ("predict", "overwrite", "1"),
    ("profile", "compile", "1"),
    ("reproduce", "tables_only", "~"),
]


@pytest.mark.parametrize(("command", "option", "value"), PRINTED)
def test_print_config_refuses_a_yes_no_value_the_run_refuses(
    command: str, option: str, value: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``aggregate_only: 1`` was printed ``false`` (``~``: ``null``), exit 0, where the run
    refuses it (issue 56, outside check 10z item 6): --print_config says the run's line."""
    with scratch(trec_dir, {**CFG, "cfg/c.yaml": f"{option}: {value}\n"}) as root:
        err = refused(root, [command, "--config", "cfg/c.yaml", "--print_config"], capsys)
    lines = [line.removeprefix(f"sanbench {command}: ") for line in problem_lines(err, command)]
    assert lines == [f"--config cfg/c.yaml: {option} {value}: expected true or false"], lines
