"""The commands' rich console: whole lines in a pipe, the terminal's width in a terminal."""

from __future__ import annotations

import pytest
from rich.table import Table

from harness.console import console


def test_a_pipe_gets_whole_table_rows_and_paths(capsys: pytest.CaptureFixture) -> None:
    path = "runs/profile-20260101-000000/report/" + "x" * 150 + "/index.html"
    table = Table(title="t")
    for column in ("encoder", "paper"):
        table.add_column(column)
    paper = "DiSAN (AAAI 2018): directional self-attention " * 4
    table.add_row("disan", paper)
    out = console()
    out.print(table)
    out.print(f"report: {path}")
    lines = capsys.readouterr().out.splitlines()
    assert f"report: {path}" in lines
    (row,) = [line for line in lines if "disan" in line]
    assert paper.strip() in row


def test_a_terminal_gets_its_own_width(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setenv("COLUMNS", "93")
    assert console().width == 93
