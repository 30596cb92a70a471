"""Every command's ``--help`` is plain text: no reStructuredText markup of the docstrings it is
made from (issue 56, G2 item 4: ``report --help`` opened with a double-backquoted command)."""

from __future__ import annotations

import re

import pytest

from harness.cli import SUBCOMMANDS, main

MARKUP = re.compile(r"``|:(?:func|class|meth|data|mod|attr):`")


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_has_no_markup(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """fit's included: its Trainer options carry Lightning's docstrings (``"auto"``)."""
    assert main([command, "--help"]) == 0
    marked = [line for line in capsys.readouterr().out.splitlines() if MARKUP.search(line)]
    assert marked == []


def test_fit_help_says_each_default_once(capsys: pytest.CaptureFixture[str]) -> None:
    """Lightning's docstrings name its own defaults ("Default: ``"auto"``.") beside the value
    sanbench uses (``--trainer.devices``: "Default: "auto". (..., default: 1)")."""
    assert main(["fit", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Default: " not in text
    assert "based on the chosen accelerator. (type: Union[list[int], str, int], default: 1)" in text


def test_the_top_level_help_names_only_the_actions_there_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Outside check 56j of #56, item 10: 'sanbench --help' listed data as '(stats, coverage,
    errors)', and 'data coverage' was refused ('expected stats'). The line names the data
    command's ACTIONS, the one list of them."""
    from harness.data.options import ACTIONS

    assert main(["--help"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  data ")]
    assert line.split(None, 1)[1] == f"inspect a task's benchmark files ({', '.join(ACTIONS)})"
