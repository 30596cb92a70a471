"""The pointer to the help (``(see sanbench X --help)``) ends a refusal of the words only
(outside check 6z item 12): a missing section file, as a flag or named in a --config file,
and a missing --config, alone, are paths' problems (no pointer); predict's and encode's
``--out o.txt`` alone is a problem of the word typed (the pointer)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import files_lines, problem_lines

SECTION_WORDS = {
    "fit": "fit --task trec --encoder bilstm",
    "suite": "suite --tasks trec --encoders bilstm",
    "tune": "tune --study dropout --task trec --encoder bilstm",
    "reproduce": "reproduce --tasks trec --encoders bilstm",
}


@pytest.mark.parametrize("how", ["flag", "config", "missing-config"])
@pytest.mark.parametrize("command", list(SECTION_WORDS))
def test_a_missing_section_file_or_config_alone_gets_no_pointer(
    command: str,
    how: str,
    trec_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("c.yaml").write_text("model: nothere.yaml\n")
    given = {
        "flag": ["--model", "nothere.yaml"],
        "config": ["--config", "c.yaml"],
        "missing-config": ["--config", "nothere.yaml"],
    }[how]
    words = [*SECTION_WORDS[command].split(), "--data-dir", str(trec_dir), "--out", "new"]
    assert main([*words, *given]) == 2
    assert sorted(os.listdir(tmp_path)) == ["c.yaml"]
    (line,) = files_lines(capsys.readouterr().err)
    assert "nothere.yaml: no such file" in line, line


@pytest.mark.parametrize(("command", "suffix"), [("predict", ".csv"), ("encode", ".npy")])
def test_an_out_of_another_suffix_alone_gets_the_pointer(
    command: str, suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with zipfile.ZipFile(tmp_path / "model.ckpt", "w") as archive:
        archive.writestr("archive/data.pkl", b"not read")
    (tmp_path / "q3.csv").write_text("how many ?\n")
    out = tmp_path / "o.txt"
    words = [command, "--ckpt", str(tmp_path / "model.ckpt"), "--input", str(tmp_path / "q3.csv")]
    assert main([*words, "--out", str(out)]) == 2
    lines = problem_lines(capsys.readouterr().err, command)
    assert lines == [f"sanbench {command}: --out {out}: expected a {suffix} file name"]


def test_an_out_that_is_the_input_says_its_suffix_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with zipfile.ZipFile(tmp_path / "model.ckpt", "w") as archive:
        archive.writestr("archive/data.pkl", b"not read")
    source = tmp_path / "in.txt"
    source.write_text("how many ?\n")
    words = ["predict", "--ckpt", str(tmp_path / "model.ckpt"), "--input", str(source)]
    assert main([*words, "--out", str(source)]) == 2
    lines = problem_lines(capsys.readouterr().err, "predict")
    assert f"sanbench predict: --out {source} is the --input file" in lines[0], lines
    assert lines[1] == f"sanbench predict: --out {source}: expected a .csv file name", lines
    assert len(lines) == 2, lines
