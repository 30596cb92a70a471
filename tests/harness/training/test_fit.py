"""``run_fit`` and ``sanbench fit`` end to end on tiny TREC-format files (real datamodule)."""

from __future__ import annotations

import csv
import json
import logging
import os
import re
from pathlib import Path

import pytest
import torch
import yaml
from jsonargparse import Namespace

from harness.cli import command_function, main, parse_command
from harness.command_parser import build
from harness.quiet import LIGHTNING_INFO
from harness.training.fit import run_fit
from harness.training.run_folder import RunFolderError
from harness.training.settings.fit_run import FitRun
from tests.harness.problem_lines import problem_lines

TINY = {
    "model.hidden_dim": 4,
    "model.head_hidden": 8,
    "trainer.max_epochs": 2,
    "model.dropout": 0.0,
}


def tiny_run(trec_dir: Path, out: Path, encoder: str = "multi_cnn", **overrides) -> FitRun:
    """``overrides``: dotted keys with ``__`` for the dot (``trainer__max_epochs=1``)."""
    glove = trec_dir / "glove.txt"
    dotted = {k.replace("__", "."): v for k, v in overrides.items()}
    return FitRun("trec", encoder, trec_dir, out, glove, overrides={**TINY, **dotted})


@pytest.mark.slow
def test_run_fit_writes_metrics_manifest_and_is_idempotent(trec_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    metrics = run_fit(tiny_run(trec_dir, out))
    for key in (
        "task",
        "encoder",
        "seed",
        "fold",
        "params",
        "train_time_per_epoch_s",
        "peak_train_mem_mb",
        "dev_infer_time_s",
        "epochs",
        "steps",
        "train_acc",
        "dev_acc",
        "test_acc",
        "config",
        "versions",
        "compile",
    ):
        assert key in metrics, key
    assert metrics["config"]["model"]["hidden_dim"] == 4 and metrics["epochs"] == 2
    assert metrics["compile"] is False and metrics["compile_s"] is None
    assert metrics["params"] == 4 * 6 * (3 + 4 + 5) + 3 * 4 + 12 * 8 + 8 + 8 * 6 + 6  # CNN + head
    assert json.loads((out / "metrics.json").read_text())["test_acc"] == metrics["test_acc"]
    assert json.loads((out / "manifest.json").read_text())["kind"] == "fit"
    with (out / "test_predictions.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 30 and set(rows[0]) == {"index", "length", "label", "prediction"}
    accuracy = sum(r["label"] == r["prediction"] for r in rows) / len(rows)
    assert accuracy == pytest.approx(metrics["test_acc"])  # same weights as trainer.test
    (out / "checkpoints" / "last.ckpt").unlink()
    assert run_fit(tiny_run(trec_dir, out)) == metrics


@pytest.mark.slow
def test_cli_fit_short_flags_config_file_and_overrides_quietly(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    extra = tmp_path / "extra.yaml"
    extra.write_text("model:\n  head_hidden: 8\ntrainer:\n  max_epochs: 3\n")
    out = tmp_path / "cli"
    argv = [
        "fit",
        "--task",
        "trec",
        "--encoder=multi_cnn",
        "--data-dir",
        str(trec_dir),
        "--embeddings",
        str(trec_dir / "glove.txt"),
        "--out",
        str(out),
        "--seed",
        "3",
        "--config",
        str(extra),
        "--trainer.max_epochs",
        "1",
        "--model.hidden_dim",
        "4",
        "--model.optimizer",
        "adadelta",
        "--model.lr",
        "0.5",
    ]
    lightning_said: list[str] = []

    def spy(record: logging.LogRecord) -> bool:  # ahead of sanbench's filter: sees every notice
        lightning_said.append(record.getMessage())
        return True

    lightning_info = logging.getLogger(LIGHTNING_INFO)
    lightning_info.filters.insert(0, spy)
    try:
        assert main(argv) == 0
    finally:
        lightning_info.removeFilter(spy)
    config = json.loads((out / "metrics.json").read_text())["config"]
    assert config["trainer"]["max_epochs"] == 1  # the option wins over the file
    assert config["model"]["head_hidden"] == 8  # the file wins over the task's default
    assert (config["model"]["optimizer"], config["data"]["batch_size"]) == ("adadelta", 32)
    assert config["seed_everything"] == 3 and config["data"]["embeddings"].endswith("glove.txt")
    printed = capsys.readouterr()
    assert '"test_acc"' in printed.out
    assert "epoch 0: step 4, " in printed.err  # one line per epoch: stderr is not a terminal
    noise = ("Tip:", "was configured so", "`Trainer.fit` stopped", " available: ", "Seed set")
    emitted = [m for m in lightning_said if any(part in m for part in noise)]
    assert emitted, "Lightning's notices were not emitted: the check below would prove nothing"
    reached = [r.getMessage() for r in caplog.records]
    assert not [m for m in reached if any(part in m for part in noise)]


@pytest.mark.slow
def test_print_config_is_a_config_that_fit_runs_as_is(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = ["fit", "--task", "trec", "--encoder", "disan", "--data-dir", str(trec_dir)]
    small = ["--trainer.max_epochs", "1", "--model.hidden_dim", "4", "--model.head_hidden", "8"]
    assert main([*argv, *small, "--print_config"]) == 0
    text = capsys.readouterr().out
    printed = yaml.safe_load(text)
    assert set(printed) >= {"seed_everything", "trainer", "model", "data", "run", "out"}
    assert printed["data"]["task"] == "trec" and printed["model"]["encoder"] == "disan"
    assert printed["data"]["batch_size"] == 16  # TREC's value for DiSAN (Bi-BloSAN §4.4)
    assert printed["model"]["optimizer"] == "adam" and printed["trainer"]["max_epochs"] == 1
    config_file = tmp_path / "trec.yaml"
    edited = text.replace("head_hidden: 8", "head_hidden: 5").replace(
        "encoder: disan", "encoder: multi_cnn"
    )
    config_file.write_text(edited)
    out = tmp_path / "from-config"
    assert main(["fit", "--config", str(config_file), "--out", str(out)]) == 0
    saved = yaml.safe_load((out / "fit_config.yaml").read_text())
    assert saved == {**yaml.safe_load(edited), "out": str(out)}
    assert json.loads((out / "metrics.json").read_text())["config"]["model"]["head_hidden"] == 5
    rerun = tmp_path / "rerun"  # the run folder's own config re-runs it elsewhere
    assert main(["fit", "--config", str(out / "fit_config.yaml"), "--out", str(rerun)]) == 0
    first, second = (json.loads((d / "metrics.json").read_text()) for d in (out, rerun))
    assert first["test_acc"] == second["test_acc"]


@pytest.mark.slow
def test_tensorboard_logger_beside_the_csv_logs(trec_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("tensorboard")
    out = tmp_path / "tb"
    argv = [
        "fit",
        "--task=trec",
        "--encoder=multi_cnn",
        f"--data-dir={trec_dir}",
        f"--out={out}",
        "--trainer.max_epochs=1",
        "--model.hidden_dim=4",
        "--trainer.logger=TensorBoardLogger",
        f"--trainer.logger.save_dir={out}",
    ]
    assert main(argv) == 0
    assert list(out.glob("lightning_logs/version_0/events.out.tfevents.*"))
    assert list(out.glob("logs/version_0/metrics.csv"))  # read by curve.csv and the reports
    assert (out / "curve.csv").is_file()


@pytest.mark.slow
def test_out_folder_of_another_run_is_refused_unless_overwrite(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "run"
    first = run_fit(tiny_run(trec_dir, out, trainer__max_epochs=1))
    common = [
        "fit",
        "--task",
        "trec",
        "--data-dir",
        str(trec_dir),
        "--out",
        str(out),
        "--embeddings",
        str(trec_dir / "glove.txt"),
        *(f"--{k}={v}" for k, v in {**TINY, "trainer.max_epochs": 1}.items()),
    ]
    capsys.readouterr()
    assert main([*common, "--encoder", "multi_cnn"]) == 0  # the same run: its metrics
    said = capsys.readouterr()
    assert json.loads(said.out)["test_acc"] == first["test_acc"]
    assert "already finished with this configuration, nothing trained" in said.err
    assert main([*common, "--encoder", "bilstm"]) == 2
    error = capsys.readouterr().err
    assert "holds another run" in error and "encoder: multi_cnn there, bilstm now" in error
    assert "--overwrite" in error and "Traceback" not in error
    assert json.loads((out / "metrics.json").read_text())["encoder"] == "multi_cnn"
    assert main([*common, "--encoder", "bilstm", "--overwrite"]) == 0
    assert json.loads((out / "metrics.json").read_text())["encoder"] == "bilstm"
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match="which sanbench did not make"):
        run_fit(tiny_run(trec_dir, stray))


@pytest.mark.slow
def test_a_longer_budget_trains_on_and_does_not_say_nothing_was_trained(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A finished folder given more epochs trains them; it printed "already finished with this
    configuration, nothing trained" all the same (issue 57 breaker)."""
    out = tmp_path / "run"

    def fit(epochs: int) -> int:
        budget = {**TINY, "trainer.max_epochs": epochs}
        data = ["--task", "trec", "--data-dir", str(trec_dir), "--encoder", "multi_cnn"]
        data += ["--embeddings", str(trec_dir / "glove.txt"), "--out", str(out)]
        return main(["fit", *data, *(f"--{k}={v}" for k, v in budget.items())])

    assert fit(1) == 0
    first = (out / "metrics.json").stat().st_mtime_ns
    capsys.readouterr()
    assert fit(2) == 0
    assert "nothing trained" not in capsys.readouterr().err
    assert (out / "metrics.json").stat().st_mtime_ns != first
    assert fit(2) == 0  # the same budget again: nothing to train, and it says so
    assert "already finished with this configuration, nothing trained" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--encoder", "nope"], "--encoder nope: expected one of bi_blosan, "),
        (
            ["--encoder", "multi_cnn", "--data.batch_size", "0"],
            "--data.batch_size 0: expected a positive integer",
        ),
        (
            ["--encoder", "multi_cnn", "--model.hidden_dim", "-3"],
            "--model.hidden_dim -3: expected a positive integer",
        ),
        (
            ["--encoder", "multi_cnn", "--model.dropuot", "0.1"],
            "unknown option --model.dropuot (did you mean --model.dropout?)",
        ),
        (["--encoder", "multi_cnn", "--task", "tre"], "--task tre: expected one of cr, "),
        (
            ["--encoder", "multi_cnn", "--trainer.logger", "TensorBoardLogger"],
            "--trainer.logger.save_dir is required: a value (an argument of "
            "lightning.pytorch.loggers.TensorBoardLogger)",
        ),
    ],
)
def test_bad_arguments_fail_at_once_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    argv = [
        "fit",
        "--task",
        "trec",
        "--data-dir",
        str(tmp_path / "absent"),
        "--out",
        str(tmp_path / "o"),
        *extra,
    ]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error
    # the absent --data-dir may be named beside it (every problem in one refusal: a batch size
    # is judged with the data folder's checks, 5a5f166)
    lines = [line for line in problem_lines(error, "fit") if "--data-dir" not in line]
    assert error.startswith("sanbench fit: ") and len(lines) == 1, error
    assert not (tmp_path / "o").exists()  # nothing built, no data read
    with pytest.raises(ValueError, match=re.escape(message.split(":")[0])):
        main(["--debug", *argv])


def test_missing_data_folder_and_empty_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--out", str(tmp_path / "o")]
    assert main([*argv, "--data-dir", str(tmp_path / "absent")]) == 2
    assert "--data-dir" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*argv, "--data-dir", str(empty)]) == 2  # the datamodule's own error, one line
    error = capsys.readouterr().err
    assert "TREC" in error and "Traceback" not in error


@pytest.mark.slow
def test_run_fit_gives_bi_blosan_appendix_a_block_length_in_its_checkpoint(
    trec_dir: Path, tmp_path: Path
) -> None:
    """r = block_length(sigma sqrt(2 ln B) + mu) of the training lengths, saved with the weights."""
    from encoders.layers.block_length import block_length, expected_max_length
    from harness.studies.block_length import length_stats

    out = tmp_path / "bi_blosan"
    metrics = run_fit(tiny_run(trec_dir, out, "bi_blosan", trainer__max_epochs=1))
    batch = metrics["config"]["data"]["batch_size"]
    stats = length_stats("trec", trec_dir, batch, seed=0)
    expected = block_length(expected_max_length(stats["mean"], stats["std"], batch))
    checkpoint = torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)
    assert checkpoint["state_dict"]["encoder._extra_state"] == {"block_len": expected}


def test_a_suite_run_and_a_tune_trial_are_the_fit_configs_of_the_same_options(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, caplog: pytest.LogCaptureFixture
) -> None:
    from harness.studies.fitting import best_fit_run
    from harness.studies.plans import TuneContext
    from harness.suite.grid import RunSpec
    from harness.suite.runner import fit_run

    out = tmp_path / "run"
    words = ["fit", "--task", "cr", "--encoder", "mtsa", "--data-dir", str(trec_dir)]
    words += ["--fold", "2", "--seed", "0", "--out", str(out), "--trainer.max_steps", "3"]
    assert main([*words, "--print_config"]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    budget = {"trainer.max_steps": 3}  # `sanbench suite --max-steps 3`
    suite_run = fit_run(RunSpec("cr", "mtsa", 0, 2), out, trec_dir, None, budget)
    with caplog.at_level(logging.INFO):
        assert suite_run.resolved() == printed
    assert not [r for r in caplog.records if "Seed set" in r.getMessage()]  # a check, no run
    context = TuneContext("dropout", "cr", "mtsa", trec_dir, None, tmp_path, overrides=budget)
    trial = best_fit_run(context, {"model.dropout": 0.3}).resolved()
    assert trial["model"]["dropout"] == 0.3 and trial["trainer"]["max_steps"] == 3
    assert (trial["trainer"], trial["run"]) == (printed["trainer"], printed["run"])


def parsed(words: list[str]) -> Namespace:
    """The config a command's words parse to, as ``sanbench`` parses them."""
    name, _ = command_function(words)
    return parse_command(name, words[1:])


def test_encoding_is_data_encoding_in_fit_suite_and_tune(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from harness.studies.options import StudyOptions
    from harness.suite.grid import RunSpec
    from harness.suite.options import SuiteOptions
    from harness.suite.runner import fit_run

    out = tmp_path / "run"
    words = ["fit", "--task", "trec", "--encoder", "mtsa", "--data-dir", str(trec_dir)]
    words += ["--out", str(out), "--encoding", "cp1252"]
    assert main([*words, "--print_config"]) == 0
    printed = yaml.safe_load(capsys.readouterr().out)
    assert printed["data"]["encoding"] == "cp1252"
    suite_words = ["suite", "--tasks", "trec", "--out", "o", "--encoding", "Windows-1252"]
    suite = build(SuiteOptions, parsed(suite_words))
    assert suite.inputs.encoding == "cp1252"  # the codec's own name
    suite_run = fit_run(
        RunSpec("trec", "mtsa", 0, None), out, trec_dir, None, {"data.encoding": "cp1252"}
    )
    assert suite_run.resolved() == printed
    tune_words = [
        "tune",
        "--study",
        "dropout",
        "--task",
        "trec",
        "--encoder",
        "mtsa",
        "--encoding",
        "cp1252",
    ]
    study = build(StudyOptions, parsed(tune_words))
    assert study.context().overrides == {"data.encoding": "cp1252"}


LATE_ENCODER = """
from pathlib import Path
import harness.training.settings.fit_cli  # task_model is imported before the registration below
from encoders import build_encoder, register_encoder
from harness.training.settings.fit_run import FitRun

@register_encoder("late_one", paper="test")
def build_late(input_dim: int = 300, hidden_dim: int = 8):
    return build_encoder("multi_cnn", input_dim=input_dim, hidden_dim=hidden_dim)

print(FitRun("snli", "late_one", Path("."), Path(".")).resolved()["model"]["encoder"])
"""


@pytest.mark.slow
def test_an_encoder_registered_after_import_is_a_valid_model_encoder() -> None:
    """A plugin (``--import``) registers its encoder after ``task_model`` was imported; the
    fit config's encoder type still takes it (a separate process keeps the registry clean)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", LATE_ENCODER],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "late_one"


@pytest.mark.slow
def test_a_run_ended_before_validating_names_the_checkpoint_it_scored(
    trec_dir: Path, tmp_path: Path
) -> None:
    """Issue 56.13: after a budget inside the first epoch ``best_checkpoint`` was "", and the
    docs' recipe (predict --ckpt checkpoints/<best_checkpoint>) failed. The scores are those of
    the last weights: ``best_checkpoint`` names last.ckpt, which holds them."""
    out = tmp_path / "short"
    with pytest.warns(UserWarning, match="before its first validation"):
        metrics = run_fit(tiny_run(trec_dir, out, trainer__max_steps=2))
    assert metrics["steps"] == 2 and metrics["best_checkpoint"] == "last.ckpt"
    saved = torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)
    assert saved["global_step"] == 2
    questions = tmp_path / "q.txt"
    questions.write_text("how many ?\n")
    ckpt = out / "checkpoints" / metrics["best_checkpoint"]
    argv = ["predict", "--ckpt", str(ckpt), "--input", str(questions), "--out"]
    assert main([*argv, str(tmp_path / "p.csv")]) == 0


@pytest.mark.slow  # trains one tiny run
def test_the_rerun_of_a_finished_fit_reads_no_data_file(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check of #56, item 19: 'already finished ..., nothing trained' came after the
    data file's Windows-1252 warning: the rerun read every file first. A file gone since is
    no matter to a run that trains nothing; a larger budget reads them again."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(trec_dir, data)
    out = tmp_path / "run"
    words = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(data)]
    words += ["--embeddings", str(data / "glove.txt"), "--out", str(out)]
    words += ["--model.hidden_dim", "4", "--trainer.max_steps", "2"]
    assert main(words) == 0
    (data / "TREC.train.all").unlink()
    capsys.readouterr()
    assert main(words) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"{out}: already finished with this configuration"), err
    assert main([*words, "--trainer.max_steps", "3"]) == 2  # it trains on: the data is read
    assert "TREC.train.all" in capsys.readouterr().err


def test_a_fit_that_never_validated_names_null_as_typed() -> None:
    """Short check 54j item 4: '--trainer.check_val_every_n_epoch null' was echoed as
    '... and --trainer.check_val_every_n_epoch None set it' (Python's None)."""
    import types

    from harness.training.fit import first_validation

    trainer = types.SimpleNamespace(check_val_every_n_epoch=None, val_check_interval=50)
    assert first_validation(trainer) == (
        "as --trainer.val_check_interval 50 and --trainer.check_val_every_n_epoch null set it"
    )


@pytest.mark.slow
def test_a_run_folder_write_failing_after_the_checks_is_an_internal_error(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkpoint write that fails after the run's checks passed (issue 56: ``--out
    L/../runs/o``, the checkpoint's path dropped ``L/..`` by name) is no bad input: exit 1, an
    internal error, as with ``--debug`` (a traceback, exit 1); it was exit 2, the bare
    ``[Errno 2] ...`` as the user's to fix. A data file's OSError stays the user's."""
    from harness.training import atomic_checkpoint_io

    def failing(self: object, checkpoint: object, path: str | Path, **options: object) -> None:
        part = Path(path).parent / ".last.ckpt.x.part"
        raise FileNotFoundError(2, "No such file or directory", str(part))

    monkeypatch.setattr(atomic_checkpoint_io.AtomicCheckpointIO, "save_checkpoint", failing)
    out = tmp_path / "run"
    words = ["--task", "trec", "--encoder", "bilstm", "--data-dir", str(trec_dir)]
    words += ["--model.hidden_dim", "4", "--trainer.max_steps", "1", "--out", str(out)]
    capsys.readouterr()
    assert main(["fit", *words]) == 1
    err = capsys.readouterr().err
    assert "internal error: RunWriteError" in err and "No such file or directory" in err, err


def test_only_an_oserror_of_the_run_folders_own_files_is_a_failed_write(tmp_path: Path) -> None:
    """:func:`own_write_failed`: a file in the run folder (by name, as tempfile names it) or
    none (a full disk); a data file elsewhere, or any other error, is not."""
    from harness.training.fit import own_write_failed

    out = tmp_path / "runs" / "o"
    assert own_write_failed(FileNotFoundError(2, "x", str(out / "checkpoints" / "a.part")), out)
    assert own_write_failed(OSError(28, "No space left on device"), out)
    assert not own_write_failed(PermissionError(13, "x", str(tmp_path / "data.txt")), out)
    assert not own_write_failed(ValueError("x"), out)
