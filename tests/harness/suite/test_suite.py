"""The suite's manifest (``harness.suite.suite``): what its page reads about the grid."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.command_parser import CommandParser, build
from harness.suite.grid import Shard, expand_grid
from harness.suite.options import SuiteOptions
from harness.suite.runner import run_shard
from harness.suite.suite import write_suite_manifest
from harness.training.settings.fit_run import FitRun
from reports.contracts.manifest import read_manifest
from tests.harness.problem_lines import problem_lines
from tests.harness.suite.test_runner import ConfigWritingFit

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
    lines = problem_lines(capsys.readouterr().err, "suite")  # the pointer: suite's, once
    assert lines[0].startswith(
        f"sanbench suite: --config {config}: optimizer.init_args.momentm: torch.optim.SGD takes no"
    ), lines  # named by the file and key as written (G1, 5dd0d49)
    assert lines[0].endswith("(did you mean momentum?)"), lines
    assert len(lines) == 1, lines  # said once, no --debug hint (bad input)
    assert not out.exists()


def test_a_misspelt_task_is_named_beside_the_fit_values(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56, item 1: ``suite --tasks treec --encoders bilstmm --model.dropout 3`` named the
    names alone when no task was known; now the fit values too, as of the nearest names."""
    words = ["suite", "--tasks", "treec", "--encoders", "bilstmm", "--model.dropout", "3"]
    out = tmp_path / "out"
    assert main([*words, "--data-dir", str(trec_dir), "--out", str(out)]) == 2
    lines = problem_lines(capsys.readouterr().err, "suite")
    assert len(lines) == 3, lines
    assert lines[0].startswith("sanbench suite: --tasks treec: expected one of ")
    assert lines[0].endswith("(did you mean trec?)")
    assert lines[1].startswith("sanbench suite: --encoders bilstmm: expected one of ")
    assert lines[2] == "sanbench suite: --model.dropout 3: expected a number in [0, 1]"
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
    commands = [line.partition(" && ")[2] for line in lines]  # after "cd FOLDER"
    assert all(command.startswith("sanbench suite --tasks trec") for command in commands)


# a suite config of nine wrong values (outside check of #56, item 3): the suite's own options,
# a name, and fit's values of every run, with what each is named by
NINE_WRONG = {
    "seeds: 0": "seeds 0: expected a positive integer",
    "encoders: multi_cn": "encoders multi_cn: expected one of",
    "max_steps: 017": "max_steps 017: read as 15 (YAML's octal)",
    "model: {width_scale: -1, dropout: 2}": "model.width_scale -1: expected a positive number",
    "optimizer: {class_path: torch.optim.SGD, lr: 0x10, momentm: 0.9}": (
        "optimizer.lr 0x10: expected a number (write 16)"
    ),
    "lr_scheduler: {class_path: torch.optim.lr_scheduler.StepLR, step_size: -1, gamma: 0}": (
        "lr_scheduler.step_size -1: expected a positive integer"
    ),
}
ALSO_NAMED = [
    "model.dropout 2: expected a number in [0, 1]",
    "optimizer.momentm: torch.optim.SGD takes no argument momentm (did you mean momentum?)",
    "lr_scheduler.gamma 0: expected a positive factor",
]


def test_a_config_files_wrong_values_are_all_named_in_one_refusal(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check of #56, item 3: the file was refused in three rounds (the integers not in
    decimal and the seeds; then the encoder, called the flag ``--encoders``; then the five
    values of fit), and its ``lr: 0x10`` was "expected a decimal integer" where fit says
    "decimal number". Now nine lines, each named by the file, at once; nothing created."""
    config = tmp_path / "s.yaml"
    config.write_text("tasks: trec\n" + "".join(f"{line}\n" for line in NINE_WRONG))
    out = tmp_path / "out"
    assert (
        main(["suite", "--data-dir", str(trec_dir), "--config", str(config), "--out", str(out)])
        == 2
    )
    lines = problem_lines(capsys.readouterr().err, "suite")
    for said in [*NINE_WRONG.values(), *ALSO_NAMED]:
        assert any(f"sanbench suite: --config {config}: {said}" in line for line in lines), (
            said,
            lines,
        )
    assert len(lines) == 9, lines
    assert not out.exists()


@pytest.mark.slow  # trains one tiny run
def test_the_rerun_of_a_finished_suite_reads_no_data_file(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check of #56, item 19: a suite whose every run was done printed the data file's
    Windows-1252 warning: every task's files were read and checked again."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(trec_dir, data)
    words = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--seeds", "1"]
    words += ["--data-dir", str(data), "--embeddings", str(data / "glove.txt")]
    words += ["--out", str(tmp_path / "s"), "--max-steps", "2", "--model.hidden_dim", "4"]
    assert main(words) == 0
    (data / "TREC.train.all").unlink()
    capsys.readouterr()
    assert main(words) == 0
    assert "0 ran, 1 already done" in capsys.readouterr().out


def _finished_suite(trec_dir: Path, out: Path) -> list[str]:
    """A suite of two multi_cnn runs on TREC trained into ``out``; its command's words."""
    run_shard(
        expand_grid(["trec"], ["multi_cnn"], 2), shard=Shard(), out_dir=out,
        fit=ConfigWritingFit(), data_dir=trec_dir, embeddings=None,
        overrides={"trainer.max_steps": 3}, log=lambda _: None,
    )  # fmt: skip
    words = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--seeds", "2"]
    return [*words, "--data-dir", str(trec_dir), "--out", str(out), "--max-steps", "3"]


@pytest.mark.parametrize("option", [["--max-length", "100"], ["--data.num_workers", "1"]])
def test_a_rerun_that_trains_nothing_records_no_setting_its_runs_did_not_use(
    trec_dir: Path, tmp_path: Path, option: list[str]
) -> None:
    """Outside check 54l, item 7: ``suite --max-length 100`` over a finished folder (a key that
    changes nothing computed, which a rerun may change) said every run was done and recorded
    ``"data.max_length": 100`` in manifest.json's overrides, every run having used 512."""
    out = tmp_path / "s"
    words = _finished_suite(trec_dir, out)
    assert main(words) == 0
    recorded = read_manifest(out, "suite")["overrides"]
    assert main([*words, *option]) == 0
    assert read_manifest(out, "suite")["overrides"] == recorded


def test_a_rerun_keeps_the_command_that_made_its_runs(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 5y, items 1 and 2: a rerun that trained nothing rewrote manifest.json's
    ``command`` with a ``--max-length 100`` no run used, and one that trained a run at 100 beside
    runs at 512 recorded ``"data.max_length": 100`` for all. The command that made the runs is
    kept, a rerun that trains is listed under ``reruns`` with its runs, and a key the runs differ
    on is recorded per run (``mixed_overrides``), no longer as the suite's."""
    out = tmp_path / "s"
    words = _finished_suite(trec_dir, out)
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])  # the command recorded
    assert main(words) == 0
    made = read_manifest(out, "suite")
    monkeypatch.setattr(sys, "argv", ["sanbench", *words, "--max-length", "100"])
    assert main([*words, "--max-length", "100"]) == 0  # trains nothing
    assert read_manifest(out, "suite")["command"] == made["command"]
    assert "reruns" not in read_manifest(out, "suite")
    words[words.index("--seeds") + 1] = "3"
    monkeypatch.setattr(sys, "argv", ["sanbench", *words, "--max-length", "100"])
    assert main([*words, "--max-length", "100"]) == 0  # trains seed 3 at 100
    manifest = read_manifest(out, "suite")
    assert manifest["command"] == made["command"]
    (rerun,) = manifest["reruns"]
    assert "--seeds 3 " in rerun["command"] and "--max-length 100" in rerun["command"]
    assert rerun["runs"] == ["trec/multi_cnn/seed2"] and rerun["overrides"] == {
        "data.max_length": 100
    }
    assert manifest["overrides"] == {"trainer.max_steps": 3}
    assert manifest["mixed_overrides"] == {
        "data.max_length": [
            {"value": 100, "runs": ["trec/multi_cnn/seed2"]},
            {"value": 512, "runs": ["trec/multi_cnn/seed0", "trec/multi_cnn/seed1"]},
        ]
    }


def test_the_manifest_counts_the_jobs_this_command_launched(tmp_path: Path) -> None:
    """Outside check 5y, job labels: a rerun that launched 1 job of a 3-job plan left only the
    plan's ``threads.jobs: 3``; the jobs this command launched are recorded, by their shards."""
    parser = CommandParser("sanbench suite")
    parser.add_options(SuiteOptions)
    words = ["--tasks", "trec", "--encoders", "mtsa", "--out", str(tmp_path)]
    options = build(SuiteOptions, parser.parse(words))
    write_suite_manifest(options, {}, [], [], ["3-of-3"])
    assert read_manifest(tmp_path, "suite")["jobs"] == {"launched": 1, "shards": ["3-of-3"]}
    write_suite_manifest(options, {}, [])  # a rerun in-process launched none
    assert "jobs" not in read_manifest(tmp_path, "suite")


def _suite_words(trec_dir: Path, out: Path, seeds: int, *more: str) -> list[str]:
    words = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", "--seeds", str(seeds)]
    return [*words, "--data-dir", str(trec_dir), "--out", str(out), "--max-steps", "3", *more]


def _run(monkeypatch: pytest.MonkeyPatch, words: list[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])  # the command recorded
    assert main(words) == 0


def test_a_shard_rerun_over_a_suite_of_one_shard_is_a_rerun(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 6y, item 1: ``--seeds 4 --shard 2/2 --max-length 80`` over a suite made as
    one shard replaced its ``command``, was not listed under ``reruns`` and recorded 80 for the
    runs that trained at 512. A change of shard count is a rerun like any other."""
    out = tmp_path / "s"
    _run(monkeypatch, made := _suite_words(trec_dir, out, 2))
    first = read_manifest(out, "suite")["command"]
    _run(monkeypatch, _suite_words(trec_dir, out, 4, "--shard", "2/2", "--max-length", "80"))
    manifest = read_manifest(out, "suite")
    assert manifest["command"] == first and "--shard" not in made
    (rerun,) = manifest["reruns"]
    assert "--shard 2/2" in rerun["command"] and rerun["runs"] == ["trec/multi_cnn/seed3"]
    assert "shard_commands" not in manifest and manifest["grid"]["shards"] == 1
    assert manifest["mixed_overrides"] == {
        "data.max_length": [
            {"value": 80, "runs": ["trec/multi_cnn/seed3"]},
            {"value": 512, "runs": ["trec/multi_cnn/seed0", "trec/multi_cnn/seed1"]},
        ]
    }


def test_a_shard_run_again_keeps_its_first_command(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 6y, item 2: shard 2/2 run again with ``--seeds 4 --max-length 80`` replaced
    ``shard_commands["2/2"]`` (the command that made seed1) and recorded 80 for every run."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "1/2"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "2/2"))
    made = read_manifest(out, "suite")
    _run(monkeypatch, _suite_words(trec_dir, out, 4, "--shard", "2/2", "--max-length", "80"))
    manifest = read_manifest(out, "suite")
    assert manifest["shard_commands"] == made["shard_commands"]
    assert manifest["command"] == made["command"]
    (rerun,) = manifest["reruns"]
    assert rerun["runs"] == ["trec/multi_cnn/seed3"] and "--max-length 80" in rerun["command"]
    assert manifest["overrides"] == {"trainer.max_steps": 3}
    assert manifest["mixed_overrides"]["data.max_length"] == [
        {"value": 80, "runs": ["trec/multi_cnn/seed3"]},
        {"value": 512, "runs": ["trec/multi_cnn/seed0", "trec/multi_cnn/seed1"]},
    ]


def test_reruns_keep_the_aggregations_and_a_grid_change_is_recorded(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 7y, item 4: after ``--seeds 2`` shards 1/2, 2/2 and an ``--aggregate-only``,
    ``--seeds 3 --shard 1/3 --max-length 80`` (trains nothing) dropped ``aggregations`` and set
    ``grid.seeds`` to 3 with no recorded command saying 3 seeds; a later ``--aggregate-only``
    then listed itself alone. Every aggregation stays, and a command that changes the grid is
    listed under ``reruns`` even when it trained no run."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "1/2"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "2/2"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--aggregate-only"))
    made = read_manifest(out, "suite")
    _run(monkeypatch, _suite_words(trec_dir, out, 3, "--shard", "1/3", "--max-length", "80"))
    manifest = read_manifest(out, "suite")
    assert manifest["aggregations"] == made["aggregations"]
    assert manifest["grid"]["seeds"] == 3 and manifest["command"] == made["command"]
    (rerun,) = manifest["reruns"]
    assert "--seeds 3 " in rerun["command"] and rerun["runs"] == []
    assert "mixed_overrides" not in manifest  # every run trained at 512
    assert manifest["overrides"] == {"trainer.max_steps": 3, "data.max_length": 512}
    _run(monkeypatch, _suite_words(trec_dir, out, 3, "--shard", "1/3"))  # the same grid
    assert read_manifest(out, "suite")["reruns"] == [rerun]
    _run(monkeypatch, _suite_words(trec_dir, out, 4, "--aggregate-only"))
    manifest = read_manifest(out, "suite")
    first, last = manifest["aggregations"]
    assert first == made["aggregations"][0] and "--seeds 4 " in last["command"]
    assert manifest["grid"]["seeds"] == 3 and manifest["reruns"] == [rerun]


def test_a_rerun_as_another_number_of_shards_is_recorded_and_names_no_missing_file(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside check 8y, item 3: after ``--seeds 2`` shards 1/2, 2/2, an ``--aggregate-only`` and
    ``--seeds 3 --shard 2/2``, ``--seeds 3 --shard 1/3`` (trains nothing) was recorded nowhere and
    printed ``-> .../results-1-of-3.csv``, a file it did not write. It is listed under
    ``reruns`` (shards 3), once, and says it wrote no rows; an ``--aggregate-only`` keeps the
    grid."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "1/2"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "2/2"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--aggregate-only"))
    _run(monkeypatch, _suite_words(trec_dir, out, 3, "--shard", "2/2"))  # trains nothing
    capsys.readouterr()
    for _ in range(2):  # the second: the grid as the last recorded command ran it
        _run(monkeypatch, _suite_words(trec_dir, out, 3, "--shard", "1/3"))
        said = capsys.readouterr().out
        assert "1-of-3: 0 ran, 1 already done, 0 failed; trained nothing, wrote no rows" in said
        assert "results-1-of-3.csv" not in said and not (out / "results-1-of-3.csv").exists()
    seeds, shards = read_manifest(out, "suite")["reruns"]
    assert "--seeds 3 --" in seeds["command"] and "--shard 2/2" in seeds["command"]
    assert "--shard 1/3" in shards["command"] and (shards["runs"], shards["shards"]) == ([], 3)
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--aggregate-only"))
    manifest = read_manifest(out, "suite")
    assert manifest["reruns"] == [seeds, shards] and manifest["grid"]["seeds"] == 3
    assert manifest["grid"]["shards"] == 2 and len(manifest["aggregations"]) == 2


def test_a_suite_whose_job_died_records_the_jobs_it_launched(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A suite whose job died wrote its tables and manifest, then failed (exit 1), but the
    manifest had no ``jobs`` entry: the shards that command launched were recorded only when
    every job finished (a leftover of outside check 5y)."""
    from harness.launch import JobOutcome, processes

    def died(calls: list, folder: Path, name: str, environment: dict, *more: object) -> list:
        n = len(calls)
        return [JobOutcome(f"{name}-{k}-of-{n}", error="killed") for k in range(1, n + 1)]

    monkeypatch.setattr(processes, "launch_processes", died)
    words = _suite_words(trec_dir, out := tmp_path / "s", 2, "--launcher", "process")
    monkeypatch.setattr(sys, "argv", ["sanbench", *words])
    assert main(words) == 1
    jobs = read_manifest(out, "suite")["jobs"]
    assert jobs == {"launched": 2, "shards": ["1-of-2", "2-of-2"]}


def test_two_first_shard_commands_with_other_max_lengths_record_each_runs_value(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shards 1/2 at ``--max-length 100`` and 2/2 at 200 (each its shard's first command)
    recorded 200 for every run: the last shard's keys replaced the first's. Each run's value
    is recorded with the runs that used it (``mixed_overrides``)."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "1/2", "--max-length", "100"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "2/2", "--max-length", "200"))
    manifest = read_manifest(out, "suite")
    assert "data.max_length" not in manifest["overrides"] and "reruns" not in manifest
    assert manifest["mixed_overrides"]["data.max_length"] == [
        {"value": 100, "runs": ["trec/multi_cnn/seed0"]},
        {"value": 200, "runs": ["trec/multi_cnn/seed1"]},
    ]
    _run(monkeypatch, _suite_words(trec_dir, out, 2))  # a plain rerun: trains nothing
    assert read_manifest(out, "suite")["mixed_overrides"] == manifest["mixed_overrides"]


def test_two_shards_at_once_each_record_only_the_runs_they_trained(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54 (outside check at f71dacf): shards 1/2 at ``--max-length 100`` and 2/2 at 200
    run at once on one ``--out``: the shard that ended last counted the other's finished run as
    its own (every run finished since it started), so ``shard_overrides`` gave 2/2 both runs and
    ``mixed_overrides`` said seed0 ran at 100 and at 200. Here 2/2 runs whole while 1/2 trains."""
    import harness.training.fit as fit_module

    out = tmp_path / "s"
    real_fit, second = fit_module.run_fit, _suite_words(trec_dir, out, 2, "--shard", "2/2")
    second += ["--max-length", "200"]

    def fit_beside_the_other_shard(run: FitRun) -> Any:
        if run.seed == 0:  # shard 1/2's run: shard 2/2 starts and ends meanwhile
            with monkeypatch.context() as inner:
                inner.setattr(fit_module, "run_fit", real_fit)
                _run(inner, second)
        return real_fit(run)

    monkeypatch.setattr(fit_module, "run_fit", fit_beside_the_other_shard)
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--shard", "1/2", "--max-length", "100"))
    manifest = read_manifest(out, "suite")
    assert manifest["shard_overrides"] == {
        "1/2": {"overrides": {"data.max_length": 100}, "runs": ["trec/multi_cnn/seed0"]},
        "2/2": {"overrides": {"data.max_length": 200}, "runs": ["trec/multi_cnn/seed1"]},
    }
    assert manifest["mixed_overrides"]["data.max_length"] == [
        {"value": 100, "runs": ["trec/multi_cnn/seed0"]},
        {"value": 200, "runs": ["trec/multi_cnn/seed1"]},
    ]


def test_a_rerun_after_a_first_command_killed_before_its_manifest_records_each_runs_value(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 13y, item 1: a suite killed (kill -9) after a run but before it wrote
    manifest.json, rerun at another ``--max-length``, recorded the rerun's value for every
    run, though the finished run's fit_config.yaml said 40. Each run's value is its own
    files'."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 1, "--max-length", "40"))
    (out / "manifest.json").unlink()  # what a kill after the run's row leaves
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--max-length", "50"))
    manifest = read_manifest(out, "suite")
    assert "data.max_length" not in manifest["overrides"]
    assert manifest["mixed_overrides"] == {
        "data.max_length": [
            {"value": 40, "runs": ["trec/multi_cnn/seed0"]},
            {"value": 50, "runs": ["trec/multi_cnn/seed1"]},
        ]
    }
    # outside check 14y, item 2: the command recorded did not make seed0, and says so
    assert manifest["runs_of_a_stopped_command"] == ["trec/multi_cnn/seed0"]
    _run(monkeypatch, _suite_words(trec_dir, out, 2))  # a rerun keeps it
    assert read_manifest(out, "suite")["runs_of_a_stopped_command"] == ["trec/multi_cnn/seed0"]


def _seed0_resumes_unreadable(run: Path) -> None:
    (run / "resumes.yaml").write_text("- 5\n")


def _seed0_config_removed(run: Path) -> None:
    (run / "fit_config.yaml").unlink()


def _seed0_config_a_folder(run: Path) -> None:
    (run / "fit_config.yaml").unlink()
    (run / "fit_config.yaml").mkdir()


def _seed0_folder_removed(run: Path) -> None:
    shutil.rmtree(run)


def _seed0_metrics_edited(run: Path) -> None:
    metrics = json.loads((run / "metrics.json").read_text())
    metrics["config"]["data"]["max_length"] = 999
    (run / "metrics.json").write_text(json.dumps(metrics))


@pytest.mark.parametrize(
    ("edit", "known"),
    [
        (_seed0_resumes_unreadable, True),
        (_seed0_config_removed, True),
        (_seed0_config_a_folder, True),
        (_seed0_folder_removed, False),
        (_seed0_metrics_edited, False),
    ],
)
def test_a_run_whose_files_cannot_be_read_is_never_credited_a_value_it_did_not_train_with(
    trec_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    edit: Callable[[Path], None],
    known: bool,
) -> None:
    """Outside check 14y, items 1 and 3: with no manifest (a kill before it), a run at 40 whose
    resumes.yaml or fit_config.yaml could not be read was recorded at the rerun's 60, and an
    unreadable run with a manifest made every default a difference (``data.num_workers: null
    and 0``). Its values are read from metrics.json too; a run neither says (or where they
    disagree) is listed as unknown, credited with nothing."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--max-length", "40"))
    (out / "manifest.json").unlink()
    edit(out / "runs" / "trec" / "multi_cnn" / "seed0")
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--max-length", "60"))  # trains nothing
    manifest = read_manifest(out, "suite")
    assert manifest.get("runs_of_unknown_values", []) == ([] if known else ["trec/multi_cnn/seed0"])
    if known:
        assert "mixed_overrides" not in manifest and manifest["overrides"]["data.max_length"] == 40
    else:  # no value is every run's: seed1's alone (outside check 15y, item 2)
        assert "data.max_length" not in manifest["overrides"]
        assert manifest["mixed_overrides"] == {
            "data.max_length": [{"value": 40, "runs": ["trec/multi_cnn/seed1"]}]
        }


def test_a_run_a_rerun_resumed_at_another_max_length_is_listed_under_both(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54 (a leftover of outside check 13y): a suite run killed after its checkpoint and
    resumed by a rerun at another ``--max-length`` was credited to the rerun's value alone,
    though it trained its first steps at the other (its resumes.yaml says so)."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 1, "--max-length", "40"))
    for name in ("manifest.json", "results-1-of-1.csv", "runs/trec/multi_cnn/seed0/metrics.json"):
        (out / name).unlink()  # what a kill after the run's last checkpoint leaves
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--max-length", "50"))
    assert read_manifest(out, "suite")["mixed_overrides"] == {
        "data.max_length": [
            {"value": 40, "runs": ["trec/multi_cnn/seed0"]},
            {"value": 50, "runs": ["trec/multi_cnn/seed0", "trec/multi_cnn/seed1"]},
        ]
    }


def test_a_run_of_unknown_values_is_credited_nothing_by_a_rerun_or_an_aggregation(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 15y, items 1 and 2: with seed0's fit_config.yaml edited by hand (it and
    metrics.json disagree), a rerun recorded ``overrides: {data.max_length: 40}``, every run's
    value, though seed0 trained at 60; an ``--aggregate-only`` after seed0's folder was deleted
    kept the earlier manifest's ``mixed_overrides``, seed0 at 60, beside
    ``runs_of_unknown_values: [seed0]``."""
    out = tmp_path / "s"
    _run(monkeypatch, _suite_words(trec_dir, out, 1, "--max-length", "60"))
    config = out / "runs" / "trec" / "multi_cnn" / "seed0" / "fit_config.yaml"
    config.write_text(config.read_text().replace("max_length: 60", "max_length: 50"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--max-length", "40"))
    manifest = read_manifest(out, "suite")
    assert "data.max_length" not in manifest["overrides"]
    assert manifest["mixed_overrides"] == {
        "data.max_length": [{"value": 40, "runs": ["trec/multi_cnn/seed1"]}]
    }
    assert manifest["runs_of_unknown_values"] == ["trec/multi_cnn/seed0"]
    config.write_text(config.read_text().replace("max_length: 50", "max_length: 60"))
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--aggregate-only"))
    assert read_manifest(out, "suite")["mixed_overrides"]["data.max_length"] == [
        {"value": 40, "runs": ["trec/multi_cnn/seed1"]},
        {"value": 60, "runs": ["trec/multi_cnn/seed0"]},
    ]
    shutil.rmtree(config.parent)
    _run(monkeypatch, _suite_words(trec_dir, out, 2, "--aggregate-only"))
    manifest = read_manifest(out, "suite")
    assert manifest["mixed_overrides"] == {
        "data.max_length": [{"value": 40, "runs": ["trec/multi_cnn/seed1"]}]
    }
    assert manifest["runs_of_unknown_values"] == ["trec/multi_cnn/seed0"]
    assert "data.max_length" not in manifest["overrides"]
