"""A --space named in a tune --config file is read beside the config file, as its section
files are (outside check 6z item 10); one not there names the path looked at."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import files_lines, problem_lines


def test_a_configs_space_is_read_beside_it(
    trec_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "c" / "sp3.yaml").write_text("model.dropout: {low: 0.1, high: 0.5}\n")
    config = "study: search\nspace: {}\ntask: trec\nencoder: bilstm\n"
    (tmp_path / "c" / "tc.yaml").write_text(config.format("sp3.yaml"))
    (tmp_path / "c" / "tc4.yaml").write_text(config.format("sp4.yaml"))
    monkeypatch.chdir(tmp_path / "other")
    words = ["tune", "--data-dir", str(trec_dir), "--out", "o"]
    assert main([*words, "--config", "../c/tc.yaml", "--trials", "0"]) == 2
    lines = problem_lines(capsys.readouterr().err, "tune")
    assert lines == ["sanbench tune: --trials 0: expected a positive integer"]
    assert main([*words, "--config", "../c/tc4.yaml"]) == 2
    (line,) = files_lines(capsys.readouterr().err)
    assert line.endswith(f"sp4.yaml: no such file: {tmp_path / 'c' / 'sp4.yaml'}"), line
    assert not (tmp_path / "other" / "o").exists()
