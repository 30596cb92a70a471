"""The suite's manifest (``harness.suite.suite``): what its page reads about the grid."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.command_parser import CommandParser, build
from harness.suite.options import SuiteOptions
from harness.suite.suite import write_suite_manifest
from reports.contracts.manifest import read_manifest

REVIEWS = Path(__file__).resolve().parents[3] / "examples" / "own-data" / "reviews.yaml"


def test_the_manifest_names_each_task_beside_the_path_it_was_given_by(tmp_path: Path) -> None:
    """Issue 56 (H17.12): the suite page's Grid line showed a task file's path where the tables
    name the task (``reviews``): the manifest held only the path."""
    parser = CommandParser("sanbench suite")
    parser.add_options(SuiteOptions)
    words = ["--tasks", f"trec,{REVIEWS}", "--encoders", "mtsa", "--out", str(tmp_path)]
    options = build(SuiteOptions, parser.parse(words))
    write_suite_manifest(options, {}, [])
    grid = read_manifest(tmp_path, "suite")["grid"]
    assert grid["tasks"] == ["trec", str(REVIEWS)]
    assert grid["task_names"] == ["trec", "reviews"]


def test_a_problem_of_every_run_is_said_once_and_points_to_suites_help(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite config's ``init_args: {momentm: 0.9}`` was printed once per encoder, each line
    ending "(see sanbench fit --help)" (issue 56, outside check 6 item 4)."""
    data = Path(__file__).resolve().parents[2] / "datamodules" / "fixtures" / "kim2014"
    config = tmp_path / "s.yaml"
    config.write_text("optimizer: {class_path: torch.optim.SGD, init_args: {momentm: 0.9}}\n")
    words = ["suite", "--tasks", "sst2", "--encoders", "multi_cnn,bilstm", "--data-dir", str(data)]
    out = tmp_path / "out"
    assert main([*words, "--config", str(config), "--out", str(out)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith(
        f"sanbench suite: --config {config}: optimizer.init_args.momentm: torch.optim.SGD takes no"
    ), lines  # named by the file and key as written (G1, 5dd0d49)
    assert lines[0].endswith("(did you mean momentum?) (see sanbench suite --help)"), lines
    assert len(lines) == 1, lines  # said once, no --debug hint (bad input)
    assert not out.exists()


def test_each_shard_of_a_grid_keeps_its_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shards share the folder and each writes the manifest as it ends: the last one's command
    replaced the others' (issue 56 left), so the suite page named one shard of four."""
    parser = CommandParser("sanbench suite")
    parser.add_options(SuiteOptions)
    for shard in ("2/3", "1/3", "3/3", "1/3"):  # shard 1 run again (its machine was lost)
        words = ["--tasks", "trec", "--encoders", "mtsa", "--out", str(tmp_path), "--shard", shard]
        monkeypatch.setattr("sys.argv", ["sanbench", "suite", *words])
        write_suite_manifest(build(SuiteOptions, parser.parse(words)), {}, [])
    manifest = read_manifest(tmp_path, "suite")
    assert list(manifest["shard_commands"]) == ["1/3", "2/3", "3/3"]
    lines = manifest["command"].splitlines()
    assert [line.rpartition(" ")[2] for line in lines] == ["1/3", "2/3", "3/3"]
    assert all(line.startswith("sanbench suite --tasks trec") for line in lines)
