"""Every command's ``--help`` is plain text: no reStructuredText markup of the docstrings it is
made from (issue 56, G2 item 4: ``report --help`` opened with a double-backquoted command)."""

from __future__ import annotations

import re

import pytest

from harness.cli import SUBCOMMANDS, main

MARKUP = re.compile(r"``|:(?:func|class|meth|data|mod|attr):`")
# fit's --help is LightningCLI's, whose Trainer options carry Lightning's own docstrings
OWN_HELP = [name for name in SUBCOMMANDS if name != "fit"]


@pytest.mark.parametrize("command", OWN_HELP)
def test_help_has_no_markup(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    marked = [line for line in capsys.readouterr().out.splitlines() if MARKUP.search(line)]
    assert marked == []
