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
