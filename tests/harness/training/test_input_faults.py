"""Bad inputs stop ``fit``, ``suite`` and ``tune`` before training (every bad line at once,
nothing in ``--out``); a non-finite loss fails the run and the suite's row."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import InputError, RunFailedError
from harness.suite.grid import RunSpec, Shard
from harness.suite.runner import run_shard
from harness.training.fit import run_fit
from tests.harness.training.test_fit import TINY, tiny_run


@pytest.fixture
def bad_dir(trec_dir: Path, tmp_path: Path) -> Path:
    """``trec_dir`` with two bad test lines and a vector line holding nan."""
    folder = tmp_path / "bad"
    shutil.copytree(trec_dir, folder)
    test = (folder / "TREC.test.all").read_text().splitlines()
    test[2], test[6] = "9 bad label ?", "x also bad ?"
    (folder / "TREC.test.all").write_text("\n".join(test) + "\n")
    with (folder / "glove.txt").open("a") as vectors:
        vectors.write("question 0.1 0.2 nan 0.4 0.5 0.6\n")
    return folder


# 17 words; the vectors' line led by its option (--embeddings /abs/glove.txt: line 18: ...)
EXPECTED_LINES = ("TREC.test.all:3: ", "TREC.test.all:7: ", "glove.txt: line 18: ")


@pytest.mark.slow
def test_fit_names_every_bad_line_of_every_file_before_training(
    bad_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Today the test file's first bad line surfaced after the whole training."""
    out = tmp_path / "run"
    words = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(bad_dir)]
    words += ["--embeddings", str(bad_dir / "glove.txt"), "--out", str(out)]
    assert main([*words, "--trainer.max_epochs", "1", "--model.hidden_dim", "4"]) == 2
    err = capsys.readouterr().err
    for expected in EXPECTED_LINES:
        assert expected in err
    assert "epoch 0" not in err and not out.exists()


@pytest.mark.slow
def test_suite_checks_every_task_before_the_first_run(
    bad_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "suite"
    argv = ["suite", "--tasks", "trec", "--encoders", "multi_cnn,bilstm", "--seeds", "1"]
    argv += ["--data-dir", str(bad_dir), "--embeddings", str(bad_dir / "glove.txt")]
    assert main([*argv, "--out", str(out), "--max-epochs", "1"]) == 2
    err = capsys.readouterr().err
    assert all(expected in err for expected in EXPECTED_LINES)
    assert not out.exists()


@pytest.mark.slow
def test_tune_checks_the_files_before_the_study(bad_dir: Path, tmp_path: Path) -> None:
    from harness.studies.plans import TuneContext
    from harness.studies.tune import training_problems

    ctx = TuneContext(
        "dropout", "trec", "multi_cnn", bad_dir, bad_dir / "glove.txt", tmp_path / "study"
    )
    # the files' bad lines are raised as such (no pointer to --help: not the command's words)
    with pytest.raises(InputError) as raised:
        training_problems(ctx)
    problem = str(raised.value)
    assert all(expected in problem for expected in EXPECTED_LINES), problem


@pytest.mark.slow
def test_max_length_is_a_fit_and_suite_option(trec_dir: Path, tmp_path: Path) -> None:
    """Every fixture sentence has at least 3 tokens: a limit of 2 refuses them, naming them."""
    run = tiny_run(trec_dir, tmp_path / "run", data__max_length=2)
    with pytest.raises(ValueError, match=r"TREC\.train\.all:1: expected sentences of at most 2"):
        run_fit(run)
    assert not (tmp_path / "run").exists()


NON_FINITE = {"model.lr": 1e30, "model.optimizer": "adam", "trainer.max_epochs": 1}
SGD_NON_FINITE = {
    "optimizer": {"class_path": "torch.optim.SGD", "init_args": {"lr": 1e30}},
    "trainer.max_epochs": 1,
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("overrides", "option"), [(NON_FINITE, "--model.lr"), (SGD_NON_FINITE, "--optimizer.lr")]
)
def test_a_non_finite_loss_fails_the_run(
    trec_dir: Path, tmp_path: Path, overrides: dict, option: str
) -> None:
    """Today: train_loss nan, metrics written, exit 0. The advice names the option that set the
    learning rate (it said --model.lr beside --optimizer.lr)."""
    run = tiny_run(
        trec_dir, tmp_path / "run", **{k.replace(".", "__"): v for k, v in overrides.items()}
    )
    with pytest.raises(RunFailedError, match="training loss became") as failed:
        run_fit(run)
    assert f"Lower the learning rate ({option})" in str(failed.value)
    assert not (tmp_path / "run" / "metrics.json").exists()


@pytest.mark.slow
def test_a_suite_records_a_non_finite_run_as_failed(trec_dir: Path, tmp_path: Path) -> None:
    """Today the suite row said "ok"."""
    summary = run_shard(
        [RunSpec("trec", "multi_cnn", 0, None)],
        shard=Shard(),
        out_dir=tmp_path / "suite",
        fit=run_fit,
        data_dir=trec_dir,
        embeddings=trec_dir / "glove.txt",
        overrides={**TINY, **NON_FINITE},
        log=lambda line: None,
    )
    assert len(summary.failed) == 1 and not summary.ran
    with (tmp_path / "suite" / "results-1-of-1.csv").open() as results:
        (row,) = csv.DictReader(results)
    assert row["status"] == "failed"
    assert row["error"].startswith("RunFailedError: the training loss became")
