"""tune --study search: a --space file's problem is said beside every other problem of the
command line (outside check 6z item 2): not YAML, a list, the key ``model:``, a missing file
hid the rest, and ``--trials 0`` (or ``--out afile``) hid the space file's problem."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import files_lines, problem_lines

SPACES = {
    "list": ("- a\n", "--space sp.yaml: expected a mapping of fit keys to ranges"),
    "not-yaml": ("a: [\n", "--space sp.yaml: not YAML ("),
    "model-key": (
        "model: m.yaml\nmodel.dropout: {low: 0.1, high: 3}\n",
        "model: expected a fit key",
    ),
    "missing": (None, "--space sp.yaml: no such file: "),
}


@pytest.mark.parametrize("kind", list(SPACES))
@pytest.mark.parametrize("other", ["--trials 0", "--out afile"])
def test_a_space_files_problem_is_said_beside_the_rest(
    kind: str,
    other: str,
    trec_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    text, said = SPACES[kind]
    if text is not None:
        Path("sp.yaml").write_text(text)
    Path("afile").write_text("")
    before = sorted(os.listdir(tmp_path))
    words = f"tune --study search --space sp.yaml --task trec --encoder bilstm --out o {other}"
    assert main([*words.split(), "--data-dir", str(trec_dir)]) == 2
    assert sorted(os.listdir(tmp_path)) == before
    err = capsys.readouterr().err
    files_only = kind == "missing" and other == "--out afile"
    lines = files_lines(err) if files_only else problem_lines(err, "tune")
    assert sum(said in line for line in lines) == 1, lines
    assert any(other.split()[1] in line for line in lines), lines
    if kind == "model-key":
        assert any("model.dropout high 3" in line for line in lines), lines


def test_a_missing_space_file_after_a_symlink_and_dotdot_names_the_path_the_kernel_reads(
    trec_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--space L/../sp.yaml``, L a symlink to real/sub, is looked for in real/, as the kernel
    reads it; the line named ``tmp/sp.yaml`` (os.path.abspath drops ``L/..`` by name) until
    2026-12-01."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "real" / "sub").mkdir(parents=True)
    Path("L").symlink_to("real/sub")
    words = ["tune", "--study", "search", "--space", "L/../sp.yaml", "--task", "trec"]
    assert main([*words, "--encoder", "bilstm", "--data-dir", str(trec_dir), "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert f"--space L/../sp.yaml: no such file: {tmp_path / 'real' / 'sp.yaml'}\n" in err, err
