"""``run_fit`` and ``sanbench fit`` end to end on tiny TREC-format files (real datamodule)."""

from __future__ import annotations

import csv
import json
import logging
from pathlib import Path

import pytest
import torch
import yaml

from harness.cli import main
from harness.training.config import FitRun
from harness.training.run import run_fit
from harness.training.run_folder import RunFolderError

TINY = {"model.hidden_dim": 4, "model.head_hidden": 8, "trainer.max_epochs": 2, "model.dropout": 0.0}


def tiny_run(trec_dir: Path, out: Path, encoder: str = "multi_cnn", **overrides) -> FitRun:
    """``overrides``: dotted keys with ``__`` for the dot (``trainer__max_epochs=1``)."""
    glove = trec_dir / "glove.txt"
    dotted = {k.replace("__", "."): v for k, v in overrides.items()}
    return FitRun("trec", encoder, trec_dir, out, glove, overrides={**TINY, **dotted})


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


def test_cli_fit_applies_overrides_quietly(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    extra = tmp_path / "extra.yaml"
    extra.write_text("head_hidden: 8\nmax_epochs: 3\n")
    out = tmp_path / "cli"
    argv = [
        "fit",
        "--task",
        "trec",
        "--encoder",
        "multi_cnn",
        "--data-dir",
        str(trec_dir),
        "--embeddings",
        str(trec_dir / "glove.txt"),
        "--out",
        str(out),
        "--config",
        str(extra),
        "--max-epochs",
        "1",
        "--hidden-dim",
        "4",
        "--optimizer",
        "adadelta",
        "--lr",
        "0.5",
    ]
    assert main(argv) == 0
    config = json.loads((out / "metrics.json").read_text())["config"]
    assert (config["max_epochs"], config["head_hidden"], config["optimizer"]) == (1, 8, "adadelta")
    printed = capsys.readouterr()
    assert '"test_acc"' in printed.out
    assert "epoch 0: step 4, " in printed.err  # one line per epoch: stderr is not a terminal
    notices = [r.getMessage() for r in caplog.records]
    assert notices and not [m for m in notices if "Tip:" in m or "was configured so" in m]


def test_print_config_is_a_config_that_fit_runs_as_is(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    argv = [
        "fit",
        "--task",
        "trec",
        "--encoder",
        "multi_cnn",
        "--data-dir",
        str(trec_dir),
        "--max-epochs",
        "1",
        "--hidden-dim",
        "4",
        "--head-hidden",
        "8",
    ]
    assert main([*argv, "--print-config"]) == 0
    text = capsys.readouterr().out
    printed = yaml.safe_load(text)
    assert printed["task"] == "trec" and printed["encoder"] == "multi_cnn"
    assert printed["batch_size"] == 32 and printed["max_epochs"] == 1  # task value, override
    config_file = tmp_path / "trec.yaml"
    config_file.write_text(text.replace("head_hidden: 8", "head_hidden: 5"))  # edit it
    out = tmp_path / "from-config"
    assert main(["fit", "--config", str(config_file), "--out", str(out)]) == 0
    assert yaml.safe_load((out / "fit_config.yaml").read_text()) == {**printed, "head_hidden": 5}
    assert json.loads((out / "metrics.json").read_text())["config"]["head_hidden"] == 5


def test_out_folder_of_another_run_is_refused_unless_overwrite(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "run"
    first = run_fit(tiny_run(trec_dir, out, max_epochs=1))
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
        *(f"--{k.replace('_', '-')}={v}" for k, v in {**TINY, "max_epochs": 1}.items()),
    ]
    capsys.readouterr()
    assert main([*common, "--encoder", "multi_cnn"]) == 0  # the same run: its metrics
    assert json.loads(capsys.readouterr().out)["test_acc"] == first["test_acc"]
    assert main([*common, "--encoder", "bilstm"]) == 2
    error = capsys.readouterr().err
    assert "holds another run" in error and "encoder: 'multi_cnn' there, 'bilstm' now" in error
    assert "--overwrite" in error and "Traceback" not in error
    assert json.loads((out / "metrics.json").read_text())["encoder"] == "multi_cnn"
    assert main([*common, "--encoder", "bilstm", "--overwrite"]) == 0
    assert json.loads((out / "metrics.json").read_text())["encoder"] == "bilstm"
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match="not a sanbench fit folder"):
        run_fit(tiny_run(trec_dir, stray))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--encoder", "nope"], "unknown encoder 'nope'"),
        (["--encoder", "multi_cnn", "--batch-size", "0"], "batch_size must be a positive integer"),
        (["--encoder", "multi_cnn", "--hidden-dim", "-3"], "hidden_dim must be a positive"),
        (["--encoder", "multi_cnn", "--dropuot", "0.1"], "unrecognized arguments: --dropuot"),
    ],
)
def test_bad_arguments_fail_at_once_without_traceback(
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
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    error = capsys.readouterr().err
    assert status == 2 and message in error and "Traceback" not in error
    assert not (tmp_path / "o").exists()  # nothing built, no data read


def test_missing_data_folder_and_unknown_task(
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
    with pytest.raises(SystemExit):
        main(["fit", "--task", "tre", "--encoder", "multi_cnn", "--data-dir", "x", "--out", "o"])
    assert "invalid choice: 'tre'" in capsys.readouterr().err


def test_run_fit_gives_bi_blosan_appendix_a_block_length_in_its_checkpoint(
    trec_dir: Path, tmp_path: Path
) -> None:
    """r = block_length(sigma sqrt(2 ln B) + mu) of the training lengths, saved with the weights."""
    from encoders.layers.mblosa import block_length
    from harness.studies.appendix_a import expected_max_length
    from harness.studies.block_length import length_stats
    from harness.training.config import resolve_config

    out = tmp_path / "bi_blosan"
    overrides = {**TINY, "max_epochs": 1}
    run_fit(FitRun("trec", "bi_blosan", trec_dir, out, overrides=overrides))
    batch = resolve_config("trec", "bi_blosan", overrides)["batch_size"]
    stats = length_stats("trec", trec_dir, batch, seed=0)
    expected = block_length(expected_max_length(stats["mean"], stats["std"], batch))
    checkpoint = torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)
    assert checkpoint["state_dict"]["encoder._extra_state"] == {"block_len": expected}
