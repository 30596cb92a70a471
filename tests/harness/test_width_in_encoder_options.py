"""A width given in ``model.encoder_options`` beside ``model.width_scale`` (or beside a different
``model.hidden_dim``) is refused like the two model options given both (outside check 9z item
7: ``model: {width_scale: 2, encoder_options: {hidden_dim: 4}}`` trained 7.57M parameters,
the scale winning silently)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.problem_lines import problem_lines
from tests.harness.refusal_scratch import refused, scratch

HEAD = {
    "fit": ("fit", "--task", "trec", "--encoder", "bilstm"),
    "suite": ("suite", "--tasks", "trec", "--encoders", "bilstm", "--max-steps", "3"),
    "tune": ("tune", "--study", "dropout", "--task", "trec", "--encoder", "bilstm"),
    "reproduce": ("reproduce", "--tasks", "trec", "--encoders", "bilstm"),
}
FILES = {
    "cfg/s.yaml": "model: {width_scale: 2, encoder_options: {hidden_dim: 4}}\n",
    "cfg/h.yaml": "model: {hidden_dim: 8, encoder_options: {hidden_dim: 4}}\n",
}
SAID = {
    "cfg/s.yaml": "--config cfg/s.yaml: model.width_scale 2 and --config cfg/s.yaml: "
    "model.encoder_options.hidden_dim 4 exclude each other: give one",
    "cfg/h.yaml": "--config cfg/h.yaml: model.hidden_dim 8 and --config cfg/h.yaml: "
    "model.encoder_options.hidden_dim 4 exclude each other: give one",
}


@pytest.mark.parametrize("command", list(HEAD))
@pytest.mark.parametrize("config", list(FILES))
def test_a_width_in_encoder_options_beside_another_width_is_refused(
    command: str, config: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = [*HEAD[command], "--data-dir", "trec", "--out", "new", "--config", config]
    with scratch(trec_dir, FILES) as root:
        lines = problem_lines(refused(root, line, capsys), command)
    assert lines == [f"sanbench {command}: {SAID[config]}"], lines


@pytest.mark.parametrize("command", ["fit", "suite"])
def test_the_same_width_in_encoder_options_and_hidden_dim_is_taken(
    command: str, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both saying 4 is one width: no refusal (the --out is refused alone, nothing trains)."""
    files = {"cfg/e.yaml": "model: {hidden_dim: 4, encoder_options: {hidden_dim: 4}}\n"}
    line = [*HEAD[command], "--data-dir", "trec", "--out", "afile", "--config", "cfg/e.yaml"]
    with scratch(trec_dir, files) as root:
        lines = refused(root, line, capsys).splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"sanbench {command}: --out afile is a"), lines
