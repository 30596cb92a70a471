"""A broken ``--config`` file (not YAML, a list, an unknown key, not there) and a missing
section file a config names are said beside every other problem of the command line, in
sanbench's words, by every command (outside check 6z items 3 and 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines

# each kind of broken config file: its text (None: not there), its line's fragment
BROKEN = {
    "list": (
        "- a\n- b\n",
        "expected a mapping of options, as --print_config writes (found a list)",
    ),
    "not-yaml": ("a: [\n", "not YAML (line 2: "),
    "unknown": ("bogus_top: 1\n", "unknown key bogus_top"),
    "missing": (None, "no such file: "),
}
# each command's words with a value it refuses, and that value's line's fragment
COMMANDS = {
    "fit": (
        "fit --task trec --encoder bilstm --data-dir /nonexist --trainer.max_steps 0",
        "max_steps 0",
    ),
    "suite": (
        "suite --tasks trec --encoders bilstm --data-dir /nonexist --seeds 0 --out o",
        "--seeds 0",
    ),
    "tune": (
        "tune --study dropout --task trec --encoder bilstm --data-dir /nonexist --trials 0 --out o",
        "--trials 0",
    ),
    "profile": ("profile --batch-size 0 --out o", "--batch-size 0"),
    "data stats": ("data stats --task treec --data-dir /nonexist", "--task treec"),
    "reproduce": ("reproduce --data-dir /nonexist --out o --max-length 0", "max-length"),
    "report": ("report /nonexist --out o --bogus", "--bogus"),
}


@pytest.mark.parametrize("kind", list(BROKEN))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_broken_config_file_is_said_beside_every_other_problem(
    command: str,
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, fragment = BROKEN[kind]
    monkeypatch.chdir(tmp_path)
    if text is not None:
        Path("c.yaml").write_text(text)
    words, value = COMMANDS[command]
    assert main([*words.split(), "--config", "c.yaml"]) == 2
    assert sorted(os.listdir(tmp_path)) == (["c.yaml"] if text is not None else [])
    lines = problem_lines(capsys.readouterr().err, command)
    assert lines[0].startswith(f"sanbench {command}: --config c.yaml: "), lines
    assert fragment in lines[0], lines
    assert any(value in line for line in lines[1:]), lines
    assert not any("not accepted" in line or "No such file" in line for line in lines), lines


@pytest.mark.parametrize("command", ["suite", "tune", "reproduce"])
def test_a_config_files_missing_section_files_are_said_beside_the_rest(
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Item 4: ``data: nothere.yaml`` and ``model: alsonot.yaml`` in a --config file hid
    ``--seeds 0`` and ``--data-dir /nonexist``."""
    monkeypatch.chdir(tmp_path)
    Path("c").mkdir()
    Path("c/cfg6.yaml").write_text("data: nothere.yaml\nmodel: alsonot.yaml\n")
    words, value = {
        "suite": ("suite --tasks trec --encoders bilstm --seeds 0", "--seeds 0"),
        "tune": ("tune --study dropout --task trec --encoder bilstm --trials 0", "--trials 0"),
        "reproduce": ("reproduce --max-length 0", "max-length"),
    }[command]
    line = f"{words} --config c/cfg6.yaml --data-dir /nonexist --out o"
    assert main(line.split()) == 2
    assert sorted(os.listdir(tmp_path)) == ["c"]
    lines = problem_lines(capsys.readouterr().err, command)
    assert sum("data nothere.yaml: no such file: c/nothere.yaml" in x for x in lines) == 1, lines
    assert sum("model alsonot.yaml: no such file: c/alsonot.yaml" in x for x in lines) == 1
    assert any(value in x for x in lines), lines
    assert any("--data-dir /nonexist: no such folder" in x for x in lines), lines
