"""Runs of the grid a suite states that never finished (outside check 9y item 3): the page said
"5 finished runs. Grid: ... 3 seeds" and put bilstm (2 runs) beside multi_cnn (3) in its Summary,
never saying trec/bilstm/seed2 had not run; tables.md said nothing either."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.command_parser import CommandParser, build
from harness.suite.grid import RunSpec, Shard
from harness.suite.options import SuiteOptions
from harness.suite.runner import run_shard
from harness.suite.suite import write_suite_manifest
from reports.contracts.manifest import read_manifest
from reports.site import training_page
from reports.site.discover import discover
from tests.harness.suite.test_runner import ConfigWritingFit

RUNS = [RunSpec("trec", "multi_cnn", seed) for seed in range(3)]
RUNS += [RunSpec("trec", "bilstm", seed) for seed in range(2)]


def _words(out: Path, seeds: int) -> list[str]:
    words = ["--tasks", "trec", "--encoders", "multi_cnn,bilstm", "--seeds", str(seeds)]
    return [*words, "--out", str(out)]


def _aggregated(out: Path, seeds: int) -> list[str]:
    """``suite --aggregate-only`` of ``out`` given ``seeds`` seeds; the tables.md lines."""
    assert main(["suite", *_words(out, seeds), "--aggregate-only"]) == 0
    return (out / "tables" / "tables.md").read_text().splitlines()


@pytest.mark.slow  # draws the suite page's figures
def test_the_runs_of_the_grid_that_never_finished_are_named(trec_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    run_shard(
        RUNS, shard=Shard(), out_dir=out, fit=ConfigWritingFit(), data_dir=trec_dir,
        embeddings=None, overrides={"trainer.max_steps": 3}, log=lambda _: None,
    )  # fmt: skip
    parser = CommandParser("sanbench suite")
    parser.add_options(SuiteOptions)
    # the manifest of the command that trained them: a grid of 3 seeds (as run_suite writes it)
    write_suite_manifest(build(SuiteOptions, parser.parse(_words(out, 3))), {}, [])
    lines = _aggregated(out, 2)  # an --aggregate-only states the grid the manifest recorded
    assert "5 of 6 runs of the grid ran; missing: trec/bilstm/seed2." in str(lines)
    assert any(line.startswith("| trec | bilstm | 2, 1 missing |") for line in lines), lines
    assert any(line.startswith("| trec | multi_cnn | 3 |") for line in lines), lines
    assert read_manifest(out, "suite")["missing"] == ["trec/bilstm/seed2"]
    assert read_manifest(out, "suite")["grid"]["seeds"] == 3
    (run,) = discover([out])
    training_page.build_suite(run, tmp_path / "page")
    html = " ".join((tmp_path / "page" / "index.html").read_text().split())
    assert "1 run of this grid never finished: trec/bilstm/seed2" in html
    assert "<td>2, 1 missing</td>" in html and "<td>3</td>" in html


def test_a_grid_every_run_of_which_finished_names_none(trec_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "s"
    run_shard(
        RUNS[:2], shard=Shard(), out_dir=out, fit=ConfigWritingFit(), data_dir=trec_dir,
        embeddings=None, overrides={"trainer.max_steps": 3}, log=lambda _: None,
    )  # fmt: skip
    parser = CommandParser("sanbench suite")
    parser.add_options(SuiteOptions)
    words = ["--tasks", "trec", "--encoders", "multi_cnn", "--seeds", "2", "--out", str(out)]
    write_suite_manifest(build(SuiteOptions, parser.parse(words)), {}, [])
    assert main(["suite", *words, "--aggregate-only"]) == 0
    assert "missing" not in (out / "tables" / "tables.md").read_text()
    assert "missing" not in read_manifest(out, "suite")
