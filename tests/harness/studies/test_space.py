"""``tune --study search --space FILE``: the space's values are checked as fit's before any
trial, each named as the file says it (harness.studies.space, harness.studies.tune)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness.cli import main


def refusal(
    space_text: str, trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str
) -> list[str]:
    """The lines of ``tune --study search``'s refusal (exit 2, no folder made) of
    ``space_text``'s space (one trial, were it accepted)."""
    space = tmp_path / "s.yaml"
    space.write_text(space_text)
    out = tmp_path / "study"
    argv = ["tune", "--study", "search", "--space", str(space), "--task", "trec"]
    argv += ["--encoder", "multi_cnn", "--data-dir", str(trec_dir), "--out", str(out)]
    argv += [
        "--trials",
        "1",
        "--max-steps",
        "1",
        "--storage",
        f"sqlite:///{tmp_path / 's.db'}",
        *flags,
    ]
    assert main(argv) == 2
    assert not out.exists()
    return [line.removeprefix("sanbench tune: ") for line in capsys.readouterr().err.splitlines()]


def test_a_space_value_is_named_as_the_file_says_it(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 leftover 1: 'model.hidden_dim: {low: 0, high: 8}' was refused as
    '--model.hidden_dim 0: expected ...', a flag nobody gave."""
    said = refusal("model.hidden_dim: {low: 0, high: 8}\n", trec_dir, tmp_path, capsys)
    space = tmp_path / "s.yaml"
    assert f"--space {space}: model.hidden_dim low 0: expected a positive integer" in said
    assert not [line for line in said if line.startswith("--model.")], said


def test_every_end_of_a_range_and_every_choice_is_checked_before_any_trial(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 leftover 2: only the low end and the first choice were checked; a refused
    high or later choice failed inside a trial (exit 0 after failed trials)."""
    text = (
        "model.dropout: {low: 0.1, high: 3}\n"
        "model.optimizer: [adam, sdg, adadelta, adamm]\n"
        "model.head_hidden: {low: 8, high: 64, step: 8}\n"
    )
    said = refusal(text, trec_dir, tmp_path, capsys)
    space = tmp_path / "s.yaml"
    expected = [
        f"--space {space}: model.dropout high 3: expected a number in [0, 1]",
        f"--space {space}: model.optimizer sdg: expected one of adadelta, adam",
        f"--space {space}: model.optimizer adamm: expected one of adadelta, adam (did you mean "
        "adam?)",
    ]
    assert [line for line in said if "head_hidden" in line or "--space" in line] == expected


def test_a_space_written_in_octal_is_said_so(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A space file is YAML 1.1 as a config file is: 'high: 010' is 8, said as such."""
    said = refusal("model.head_hidden: {low: 4, high: 010}\n", trec_dir, tmp_path, capsys)
    space = tmp_path / "s.yaml"
    assert said[0] == (
        f"--space {space}: model.head_hidden high 010: read as 8 (YAML's octal); expected an "
        "integer without a leading 0"
    )


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--model.dropout", "3"], "--model.dropout 3"),
        (["--model.dropout=0.3"], "--model.dropout 0.3"),
        (["--max-steps", "5"], "--max-steps 5"),
    ],
)
def test_a_flag_the_space_sets_is_refused_as_such(
    flags: list[str],
    named: str,
    trec_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 56 leftover 3: '--model.dropout 3' beside the space's model.dropout got a false
    'read as 0 (YAML's octal)' line (the flag's text against the space's value); the trials
    would have taken the space's values, the flag none."""
    key = (
        "trainer.max_steps: {low: 2, high: 4}"
        if "--max-steps" in flags
        else ("model.dropout: {low: 0.1, high: 0.5}")
    )
    said = refusal(f"{key}\n", trec_dir, tmp_path, capsys, *flags)
    space = tmp_path / "s.yaml"
    searched = key.partition(":")[0]
    assert said[0] == (
        f"{named}: --space {space} searches {searched} (each trial takes its own value); give one"
    )
    assert not [line for line in said if "octal" in line], said


def test_a_config_files_value_is_the_base_the_space_replaces(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --config file's value of a searched key is replaced by each trial's (documented): not
    refused, and not judged as the space's value."""
    config = tmp_path / "c.yaml"
    config.write_text("model:\n  dropout: 3\n  hidden_dim: 0\n")
    said = refusal(
        "model.dropout: {low: 0.1, high: 0.5}\n", trec_dir, tmp_path, capsys, "--config",
        str(config),
    )  # fmt: skip
    assert said[0] == f"--config {config}: model.hidden_dim 0: expected a positive integer"
    assert not [line for line in said if "dropout" in line], said


@pytest.mark.slow
def test_a_trial_replaces_a_config_files_value_of_a_searched_key(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config file's 'dropout: 0.3' is the base a trial's value replaces: each trial's
    dropout (0.42) was judged as the file's text ('--config c.yaml: model.dropout 0.3:
    expected a number'), failing every trial, and so was the best configuration's."""
    config, space, out = tmp_path / "c.yaml", tmp_path / "s.yaml", tmp_path / "study"
    config.write_text("model:\n  dropout: 0.3\n")
    space.write_text("model.dropout: {low: 0.1, high: 0.5}\n")
    argv = ["tune", "--study", "search", "--space", str(space), "--config", str(config)]
    argv += ["--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir)]
    argv += ["--trials", "1", "--max-steps", "1", "--out", str(out)]
    argv += ["--storage", f"sqlite:///{tmp_path / 's.db'}"]
    assert main(argv) == 0, capsys.readouterr().err
    best = yaml.safe_load((out / "best_config.yaml").read_text())
    assert 0.1 <= best["model"]["dropout"] <= 0.5


@pytest.mark.parametrize("flag", [["--model.dropout", "0.3"], ["--model.dropout=0.3"]])
def test_a_flag_the_dropout_study_sets_is_refused_as_such(
    flag: list[str], trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check f56m's leftover: 'tune --study dropout --model.dropout 0.3' was accepted
    and the flag silently replaced by each trial's 1 - keep_prob, as a searched key's is."""
    out = tmp_path / "study"
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"]
    argv += ["--data-dir", str(trec_dir), "--out", str(out), "--trials", "1", "--max-steps", "1"]
    argv += ["--storage", f"sqlite:///{tmp_path / 's.db'}", *flag, "--model.hidden_dim", "0"]
    assert main(argv) == 2
    assert not out.exists()
    said = [line.removeprefix("sanbench tune: ") for line in capsys.readouterr().err.splitlines()]
    assert said == [  # the flag's value is not judged too: no trial would take it
        "--model.dropout 0.3: --study dropout searches model.dropout (each trial takes its own "
        "value); give one",
        "--model.hidden_dim 0: expected a positive integer",
        "(see sanbench tune --help)",
    ]
