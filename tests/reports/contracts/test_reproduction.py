"""The reproduction folder's contract: its tables and what a missing one says."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from reports.contracts.reproduction import read_table


def test_a_missing_table_prints_a_command_a_shell_runs_as_is(tmp_path: Path) -> None:
    """Outside check 14: the rebuild command held the folder unquoted (a space split it)."""
    out = tmp_path / "my runs"
    with pytest.raises(FileNotFoundError) as raised:
        read_table(out, "table1")
    command = str(raised.value).partition("`")[2].rpartition("`")[0]
    assert shlex.split(command) == ["sanbench", "reproduce", "--out", str(out), "--tables-only"]
