"""``sanbench tune --launcher``: which worker jobs a rerun launches (harness.studies.tune).
In-process, with ``launch`` replaced by a recorder: no job starts."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import harness.launch
from harness.cli import main
from harness.launch import JobOutcome
from harness.studies import block_length_memory


@pytest.fixture(autouse=True)
def measured_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trial's peak is a constant, not a measurement in a process of its own (24 s)."""
    monkeypatch.setattr(block_length_memory, "peak_forward_mb", lambda *args: 1.0)


def study(tmp_path: Path, trials: int) -> list[str]:
    storage = f"sqlite:///{tmp_path / 's.db'}"
    argv = ["tune", "--study", "block-length-memory", "--lengths", "4", "--batch-size", "2"]
    argv += ["--dim", "8", "--trials", str(trials), "--storage", storage, "--study-name", "s"]
    return [*argv, "--out", str(tmp_path / "study")]


def launched(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """``main(argv)``'s exit status and how many worker jobs it started (each call is recorded,
    none run)."""
    calls: list[Any] = []

    def record(jobs: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
        calls.extend(jobs)
        return []

    monkeypatch.setattr(harness.launch, "launch", record)
    status = main(argv)
    return status, len(calls)


@pytest.mark.slow  # four in-process commands: 7 CPU-s
def test_a_finished_study_launches_no_worker_and_other_settings_none_either(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rerun of a finished study started its workers (``--launcher local --jobs 2``: 24 CPU-s
    against 7 in this process), each to find every trial done."""
    assert main(study(tmp_path, 1)) == 0  # its one trial, here
    workers = ["--launcher", "local", "--jobs", "2"]
    assert launched([*study(tmp_path, 1), *workers], monkeypatch) == (0, 0)
    assert "no worker to launch" in capsys.readouterr().out
    # a larger budget has trials left: every worker asked for starts
    assert launched([*study(tmp_path, 2), *workers], monkeypatch) == (0, 2)
    # other settings are refused before any worker starts (the workers refused them)
    assert launched([*study(tmp_path, 1), "--dim", "16", *workers], monkeypatch) == (2, 0)
    assert "other settings" in capsys.readouterr().err


@pytest.mark.slow  # trains one 2-step trial: about 6 CPU-s
def test_a_finished_study_rerun_reads_no_data(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check b56c of #56, item 2: ``tune --config runs/t1/tune-config.yaml`` of a study
    with every trial finished read TREC again (its Windows-1252 warning), then said 'continuing,
    2 trials already finished'; a finished fit and suite read nothing. Here its training file is
    gone by the rerun: read, it would be refused."""
    data = tmp_path / "data"
    shutil.copytree(trec_dir, data)
    argv = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"]
    argv += ["--trials", "1", "--max-steps", "2", "--model.hidden_dim", "4"]
    argv += ["--data-dir", str(data), "--out", str(tmp_path / "study")]
    assert main(argv) == 0
    (data / "TREC.train.all").unlink()
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    assert "continuing, 1 trials already finished" in capsys.readouterr().out
    assert main([*argv[:-2], "--out", str(tmp_path / "other")]) == 2  # a new study reads it
    assert "TREC.train.all" in capsys.readouterr().err


def test_the_console_says_the_study_in_the_words_of_its_trial_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check b56e of #56, item 7: below trial lines saying ``dev_acc=50.1%`` tune printed
    the whole summary (``{"optuna_study": ..., "values": [0.5011110901832581], ...}``). Now the
    counts, each best trial as its trial line gives it, the study's results a line each."""
    assert main([*study(tmp_path, 3)[:-2], "--out", str(tmp_path / "study")]) == 0
    lines = capsys.readouterr().out.splitlines()
    summary = lines[lines.index("study 's': 3 trial(s): 3 complete") :]
    assert not any(line.lstrip().startswith(("{", "}", '"')) for line in lines)
    # every peak is 1 here (measured_at_once): the first trial is the best, at whichever r the
    # grid sampler drew first (in a random order)
    # in the page's names (short check 56i, item 8: 'seq_len=128 block_len=9 ->
    # peak_mem_mb=192' and 'best per seq_len:' beside the page's 'n (seq_len)', 'peak memory (MB)')
    assert summary[1] == "best per n (seq_len):"
    best = re.fullmatch(
        r"  trial 0: n \(seq_len\) = 4, r \(block_len\) = ([234]) -> peak memory \(MB\) = (1\.00)"
        r" \(tied with trials 1, 2\)",  # every peak ties (outside check 56j, item 9)
        summary[2],
    )
    assert best, summary[2]
    assert "results:" in summary and "  device: cpu" in summary
    # in the page's words (short outside check 56f, item 5: the summary's keys, and "none"),
    # beside the trial lines' names and numbers (outside check 56g, item 3: 'seq_len=8
    # block_len=2 -> peak_mem_mb=11.8492' above 'n 8, measured argmin r 2, its peak (MB) 11.8')
    # (every peak ties here: the measured argmin is the smallest r, the best trial the first)
    per_length = (
        r"    n \(seq_len\) 4, measured argmin r \(block_len\) 2, its peak \(MB\) 1\.00, .*"
    )
    assert any(re.fullmatch(per_length, line) for line in summary), summary
    assert not any("none" in line or "r_measured" in line for line in summary)
    assert summary[-1] == f"outputs: {tmp_path / 'study'}"


def test_a_single_best_and_a_pareto_front_read_as_trial_lines() -> None:
    from harness.studies.console_lines import summary_lines

    trial = {"number": 1, "params": {"keep_prob": 0.5324345088567257}, "values": [0.50111109]}
    dropout = {"optuna_study": "d", "objectives": {"dev_acc": "maximize"}, "best": [trial]}
    dropout |= {"trial_counts": {"complete": 2, "pruned": 1}, "results": {}}
    assert summary_lines(dropout) == [
        "study 'd': 3 trial(s): 2 complete, 1 pruned",
        "best: trial 1: keep_prob = 0.532 -> dev acc (%) = 50.1",
    ]
    front = [
        {"number": n, "params": {"block_len": n + 2}, "values": [0.8, 30.0 + n]} for n in (0, 1)
    ]
    objectives = {"dev_acc": "maximize", "peak_train_mem_mb": "minimize"}
    pareto = {"optuna_study": "b", "objectives": objectives, "best": front}
    pareto |= {"trial_counts": {"complete": 2}, "results": {"best_dev_acc": 0.8, "pareto": []}}
    assert summary_lines(pareto) == [
        "study 'b': 2 trial(s): 2 complete",
        "Pareto front (2 trials):",
        "  trial 0: r (block_len) = 2 -> dev acc (%) = 80.0, training memory (MB) = 30.0",
        "  trial 1: r (block_len) = 3 -> dev acc (%) = 80.0, training memory (MB) = 31.0",
        "results:",
        "  best dev acc (%): 80.0%",
        "  Pareto front:",
    ]


def test_a_misspelt_encoder_is_named_beside_the_trials_fit_values(
    tmp_path: Path, trec_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    """As fit's (outside check 56e of #56, item 3): ``tune --encoder bilstmm --model.hidden_dim
    0`` named the encoder alone; the trials' values are judged as of its nearest name."""
    words = ["tune", "--study", "dropout", "--task", "trec", "--encoder", "bilstmm"]
    words += ["--model.hidden_dim", "0", "--data-dir", str(trec_dir), "--out", str(tmp_path / "t")]
    assert main(words) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and lines[-1] == "(see sanbench tune --help)", lines
    assert lines[0].startswith("sanbench tune: --encoder bilstmm: expected one of ")
    assert lines[0].endswith("(did you mean bilstm?)")
    assert lines[1] == "sanbench tune: --model.hidden_dim 0: expected a positive integer"
    assert not (tmp_path / "t").exists()


def test_a_misspelt_task_is_named_beside_the_trials_fit_values(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 56, item 2: ``tune --task treec --encoder bilstmm --model.hidden_dim 0`` named the
    task and the encoder alone; the trials' values are judged as of their nearest names."""
    words = ["tune", "--study", "dropout", "--task", "treec", "--encoder", "bilstmm"]
    words += ["--model.hidden_dim", "0", "--data-dir", str(tmp_path), "--out", str(tmp_path / "t")]
    assert main(words) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 4 and lines[-1] == "(see sanbench tune --help)", lines
    assert lines[0].startswith("sanbench tune: --task treec: expected one of ")
    assert lines[0].endswith("(did you mean trec?)")
    assert lines[1].startswith("sanbench tune: --encoder bilstmm: expected one of ")
    assert lines[2] == "sanbench tune: --model.hidden_dim 0: expected a positive integer"
    assert not (tmp_path / "t").exists()


def test_a_misspelt_study_hides_no_misspelt_task_or_encoder(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``tune --study dropoutt --task treec --encoder bilstmm`` named only the study, though it
    said 'did you mean dropout?'; now the rest is judged as of that study, in one refusal
    (short check 56i item 5)."""
    from tests.harness.problem_lines import problem_lines

    out = tmp_path / "t"
    words = ["tune", "--study", "dropoutt", "--task", "treec", "--encoder", "bilstmm"]
    assert main([*words, "--out", str(out)]) == 2
    lines = problem_lines(capsys.readouterr().err, "tune")
    assert [line.split(":")[1].strip() for line in lines] == [
        "--study dropoutt",
        "--data-dir is required unless --outputs-only (or the task is a task file) (the "
        "benchmarks' folder",  # beside a misspelt benchmark too (outside check 56j item 2)
        "--task treec",
        "--encoder bilstmm",
    ], lines
    assert not out.exists()


@pytest.mark.slow  # two in-process commands, one trial: about 5 CPU-s
def test_a_study_finished_by_the_other_worker_of_a_dead_job_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 7y, item 6: one job was killed mid-trial, the other continued its trial
    and finished the study, yet the command said 'rerun the same command to finish the study'
    and exited 1 (the rerun had nothing to do). A finished study exits 0 saying the job died
    and its trials were continued; with trials left, 1 and the rerun line, as before."""

    def one_dies(jobs: list[Any], *args: Any, **kwargs: Any) -> list[JobOutcome]:
        jobs[0]()  # the live worker runs the study's trials here
        return [JobOutcome("w-1", result={}), JobOutcome("w-2", error="killed, no result")]

    monkeypatch.setattr(harness.launch, "launch", one_dies)
    workers = ["--launcher", "process", "--jobs", "2"]
    assert main([*study(tmp_path, 1), *workers]) == 0
    said = capsys.readouterr()
    assert "job w-2 died: killed, no result (no log file)" in said.out
    assert "1 of 2 jobs died (logs above); the other workers continued any trial" in said.out
    assert "rerun" not in said.err

    def both_die(jobs: list[Any], *args: Any, **kwargs: Any) -> list[JobOutcome]:
        return [JobOutcome(f"w-{k}", error="killed, no result") for k in (1, 2)]

    monkeypatch.setattr(harness.launch, "launch", both_die)
    assert main([*study(tmp_path, 2), *workers]) == 1
    assert "rerun the same command to finish the study" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        ([], ["--study is required"]),
        (["--study", "dropout"], ["--task is required", "--encoder is required"]),
        (["--study", "dropout", "--task", "trec"], ["--encoder is required"]),
    ],
)
def test_a_trainer_files_unknown_key_is_said_beside_the_options_left_out(
    tmp_path: Path,
    trec_dir: Path,
    capsys: pytest.CaptureFixture,
    given: list[str],
    missing: list[str],
) -> None:
    """Issue 56 (f19a item 1): ``tune --trainer t.yaml`` (``max_stepz: 3``) with ``--study``,
    ``--task`` or ``--encoder`` left out named the options alone, as fit does not; now the
    file's unknown key is said beside them, with its near name, one line each."""
    from tests.harness.problem_lines import problem_lines

    (tmp_path / "t.yaml").write_text("max_stepz: 3\n")
    words = ["tune", *given, "--trainer", str(tmp_path / "t.yaml"), "--data-dir", str(trec_dir)]
    assert main([*words, "--out", str(tmp_path / "o")]) == 2
    lines = [
        line.removeprefix("sanbench tune: ")
        for line in problem_lines(capsys.readouterr().err, "tune")
    ]
    unknown = f"--trainer {tmp_path / 't.yaml'}: unknown key max_stepz (did you mean max_steps?)"
    assert unknown in lines, lines
    assert [line.split(":")[0] for line in lines if line != unknown] == missing, lines
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--trainer", "{t}"], ["--study is required", "--trainer {t}"]),
        (
            [
                *("--study", "dropout", "--task", "trec", "--encoder", "multi_cnn"),
                *("--trials", "0", "--model.hidden_dim", "0"),
            ],
            ["--trials 0", "--model.hidden_dim 0"],
        ),
    ],
    ids=["study_left_out", "trials_refused"],
)
def test_print_config_says_the_trials_values_beside_a_refused_option(
    tmp_path: Path, capsys: pytest.CaptureFixture, given: list[str], said: list[str]
) -> None:
    """Issue 56 (f19a item 2): ``tune --print_config`` named a refused option of its own alone
    (``--study`` left out beside a ``--trainer`` file's ``max_stepz``; ``--trials 0`` beside
    ``--model.hidden_dim 0``), while the run names both; now every problem at once."""
    from tests.harness.problem_lines import problem_lines

    (tmp_path / "t.yaml").write_text("max_stepz: 3\n")
    words = [word.replace("{t}", str(tmp_path / "t.yaml")) for word in given]
    assert main(["tune", *words, "--print_config"]) == 2
    captured = capsys.readouterr()
    lines = [line.removeprefix("sanbench tune: ") for line in problem_lines(captured.err, "tune")]
    expected = [word.replace("{t}", str(tmp_path / "t.yaml")) for word in said]
    assert [line.split(":")[0] for line in lines] == expected, lines
    assert captured.out == ""
