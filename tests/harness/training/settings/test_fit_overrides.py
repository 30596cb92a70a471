"""``fit_overrides`` (``harness/training/settings/fit_overrides.py``): the fit options that
``suite``, ``tune`` and ``reproduce`` pass to every run, read as ``sanbench fit`` reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from tests.harness.problem_lines import problem_lines

# each command that passes fit options to its runs, with the words that choose one run
RUNS = {
    "suite": ["--tasks", "trec", "--encoders", "multi_cnn"],
    "tune": ["--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"],
    "reproduce": ["--tasks", "trec"],
}


@pytest.mark.parametrize("command", RUNS)
@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--lr_scheduler.step_size", "0"], "--lr_scheduler.step_size needs --lr_scheduler CLASS"),
        (["--optimizer.lr", "0.1"], "--optimizer.lr needs --optimizer CLASS"),
    ],
    ids=["lr_scheduler", "optimizer"],
)
def test_an_argument_without_its_class_is_named_as_fit_names_it(
    command: str, words: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #56, item 2: ``suite ... --lr_scheduler.step_size 0`` printed
    jsonargparse's 'Parser key "lr_scheduler": Does not validate against any of the Union
    subtypes ... Given value: {'class_path': None, ...}' (a class of None was passed on)."""
    out = tmp_path / "out"
    run = [command, *RUNS[command], "--data-dir", str(tmp_path), "--out", str(out), *words]
    assert main(run) == 2
    err = capsys.readouterr().err
    assert said in err and "Union" not in err, err
    assert not out.exists()


@pytest.mark.parametrize("printing", [[], ["--print_config"]], ids=["run", "print_config"])
@pytest.mark.parametrize("command", RUNS)
def test_a_runs_fit_problem_is_said_beside_a_data_folder_clash(
    command: str,
    printing: list[str],
    trec_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 56: beside a data folder clash ('--data-dir d and -c c.yaml: data.data_dir B: give
    one', cf3e01d) no run's fit config was judged: '--model.hidden_dim 0' was said only once
    the clash was fixed. Now both, one line each (the runs judged with either folder: it
    changes no model's check), from --print_config too; nothing made."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "B").mkdir()
    Path("c.yaml").write_text("data: {data_dir: B}\n")
    words = ["-c", "c.yaml", "--data-dir", str(trec_dir), "--model.hidden_dim", "0"]
    assert main([command, *RUNS[command], *words, "--out", "o", *printing]) == 2
    assert problem_lines(capsys.readouterr().err, command) == [
        f"sanbench {command}: --data-dir {trec_dir} and -c c.yaml: data.data_dir B: give one",
        f"sanbench {command}: --model.hidden_dim 0: expected a positive integer",
    ]
    assert not Path("o").exists()


@pytest.mark.parametrize("printing", [[], ["--print_config"]], ids=["run", "print_config"])
@pytest.mark.parametrize("command", RUNS)
@pytest.mark.parametrize(
    ("section", "typed"),
    [
        (["-c", "c.yaml"], "-c c.yaml: data.data_dir B"),
        (["--data.data_dir", "B"], "--data.data_dir B"),
    ],
    ids=["config", "flag"],
)
def test_a_runs_fit_problem_is_said_beside_a_data_folder_clash_and_a_refused_data_part(
    command: str,
    section: list[str],
    typed: str,
    printing: list[str],
    trec_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 56: beside a clash and a refused data part (``--max-length 0``, the whole judged
    with its stand-in, cf3e01d) the run said the clash and ``--max-length 0`` alone, not
    ``--model.hidden_dim 0`` (so did reproduce --print_config): the runs' sections were judged
    beside the whole without the stand-in's folder, and clashed again. Now all three, one each."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "B").mkdir()
    Path("c.yaml").write_text("data: {data_dir: B}\n")
    words = [*section, "--data-dir", str(trec_dir), "--model.hidden_dim", "0", "--max-length", "0"]
    assert main([command, *RUNS[command], *words, "--out", "o", *printing]) == 2
    assert sorted(problem_lines(capsys.readouterr().err, command)) == sorted(
        [
            f"sanbench {command}: --data-dir {trec_dir} and {typed}: give one",
            f"sanbench {command}: --max-length 0: expected a positive number of tokens",
            f"sanbench {command}: --model.hidden_dim 0: expected a positive integer",
        ]
    )
    assert not Path("o").exists()
