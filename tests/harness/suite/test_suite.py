"""The suite's manifest (``harness.suite.suite``): what its page reads about the grid."""

from __future__ import annotations

from pathlib import Path

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
