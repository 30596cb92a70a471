"""The command a results folder records (``harness.redaction.recorded_command``): it runs as
printed, a ``--config`` file given included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.redaction import config_read, recorded_command


def test_a_command_that_read_a_config_file_records_the_resolved_one_beside_its_results(
    tmp_path: Path,
) -> None:
    saved = tmp_path / "out" / "suite-config-1-of-1.yaml"
    words = ["--import", "mine", "suite", "--config", "s.yaml", "--import=theirs", "--seeds", "2"]
    with config_read("seeds: 2\nstorage: postgresql://u:secret@h/db\n"):
        command = recorded_command(words, config_file=saved)
    assert command == f"sanbench --import mine suite --import=theirs --config {saved}"
    assert saved.read_text() == "seeds: 2\nstorage: postgresql://u:***@h/db\n"
    assert (
        recorded_command(words, config_file=tmp_path / "none.yaml") == f"sanbench {' '.join(words)}"
    )
    assert not (tmp_path / "none.yaml").exists()  # no --config read: the words as given


@pytest.mark.slow  # trains one run
def test_a_suite_from_a_config_file_records_a_command_that_runs_where_the_file_is_gone(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check of #56, item 8: after ``suite --config s4.yaml`` the page showed ``sanbench
    suite --config s4.yaml``, said it 'runs as written', and the file was not saved with the
    run: from another folder, '--config s4.yaml: No such file or directory'."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "s4.yaml"
    config.write_text(
        f"tasks: trec\nencoders: multi_cnn\nseeds: 1\nmax_steps: 2\nout: runs/s4\n"
        f"data_dir: {trec_dir}\nmodel: {{hidden_dim: 4}}\n"
    )
    words = ["suite", "--config", str(config), "--model.dropout", "0.3"]
    monkeypatch.setattr("sys.argv", ["sanbench", *words])
    assert main(words) == 0
    config.unlink()
    recorded = json.loads((tmp_path / "runs/s4/manifest.json").read_text())["command"]
    assert recorded == "sanbench suite --config runs/s4/suite-config-1-of-1.yaml"
    saved = yaml.safe_load((tmp_path / "runs/s4/suite-config-1-of-1.yaml").read_text())
    assert saved["model"] == {"hidden_dim": 4, "dropout": 0.3} and saved["seeds"] == 1
    assert main(recorded.split()[1:]) == 0  # as printed: finished, nothing trained again
