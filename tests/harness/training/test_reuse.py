"""A trained model reused: checkpoints that stand alone, ``sanbench predict`` / ``encode``,
TensorBoard logs, ``torch.compile``."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import lightning.pytorch as pl
import numpy as np
import pytest
import torch

from datamodules.tasks import TREC_LABELS
from harness.cli import main
from harness.inference.sentences import EmptySentenceWarning
from harness.training.fit import run_fit
from harness.training.module import TaskModule
from tests.harness.fixtures import warm_commands
from tests.harness.fixtures.training_toy import DIM, VOCAB, ToyDataModule
from tests.harness.training.test_fit import tiny_run

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def trained(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(run folder, best checkpoint) of a tiny TREC fit; and the test sentences as a file."""
    out = tmp_path_factory.mktemp("trained") / "run"
    metrics = run_fit(tiny_run(trec_dir, out, trainer__max_epochs=3))
    return out, out / "checkpoints" / metrics["best_checkpoint"]


def _test_sentences(trec_dir: Path, path: Path) -> Path:
    lines = (trec_dir / "TREC.test.all").read_text().splitlines()
    path.write_text("".join(line.split(" ", 1)[1] + "\n" for line in lines))
    return path


@pytest.mark.slow
def test_predict_in_a_fresh_process_repeats_the_fits_test_predictions(
    trec_dir: Path, trained: tuple[Path, Path], tmp_path: Path
) -> None:
    out, best = trained
    sentences = _test_sentences(trec_dir, tmp_path / "questions.txt")
    predictions = tmp_path / "pred.csv"
    command = [
        sys.executable,
        "-m",
        "harness.cli",
        "predict",
        "--ckpt",
        str(best),
        "--input",
        str(sentences),
        "--out",
        str(predictions),
        "--batch-size",
        "7",
    ]
    done = warm_commands.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with predictions.open() as handle:
        rows = list(csv.DictReader(handle))
    with (out / "test_predictions.csv").open() as handle:
        expected = {int(r["index"]): int(r["prediction"]) for r in csv.DictReader(handle)}
    assert list(rows[0]) == ["line", "sentence", "label", *(f"p_{c}" for c in TREC_LABELS)]
    assert [int(r["line"]) for r in rows] == list(range(1, 31))
    assert [r["sentence"] for r in rows] == sentences.read_text().splitlines()
    assert [r["label"] for r in rows] == [TREC_LABELS[expected[i]] for i in range(30)]
    for row in rows:
        probabilities = [float(row[f"p_{label}"]) for label in TREC_LABELS]
        assert sum(probabilities) == pytest.approx(1.0, abs=1e-4)
        assert TREC_LABELS[int(np.argmax(probabilities))] == row["label"]


def test_encode_writes_the_pooled_vectors_in_input_order(
    trec_dir: Path, trained: tuple[Path, Path], tmp_path: Path
) -> None:
    _, best = trained
    sentences = _test_sentences(trec_dir, tmp_path / "sentences.txt")
    vectors_path = tmp_path / "emb.npy"
    argv = [
        "encode",
        "--ckpt",
        str(best),
        "--input",
        str(sentences),
        "--out",
        str(vectors_path),
        "--batch-size",
        "4",
    ]
    assert main(argv) == 0
    vectors = np.load(vectors_path)
    module = TaskModule.load_from_checkpoint(best, map_location="cpu").eval()
    assert vectors.shape == (30, module.encoder.output_dim) and vectors.dtype == np.float32
    vocabulary = module.vocabulary
    assert vocabulary is not None and vocabulary["itos"][:2] == ["<pad>", "<unk>"]
    stoi = {token: i for i, token in enumerate(vocabulary["itos"])}
    for row in (0, 17):  # one sentence at a time: no padding, no batch neighbours
        tokens = sentences.read_text().splitlines()[row].split()
        ids = torch.tensor([[stoi.get(t, 1) for t in tokens]])
        with torch.no_grad():
            pooled = module.encode(ids, torch.ones_like(ids, dtype=torch.bool))
        np.testing.assert_allclose(vectors[row], pooled[0].numpy(), rtol=1e-5, atol=1e-6)


def test_predict_rejects_bad_lines_and_a_wrong_suffix_without_traceback(
    trained: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    _, best = trained
    bad = tmp_path / "bad.txt"
    bad.write_text("how many ?\nwhat\tis this\nwho\there\n")
    assert (
        main(
            ["predict", "--ckpt", str(best), "--input", str(bad), "--out", str(tmp_path / "p.csv")]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert "bad.txt:2: " in error and "bad.txt:3: " in error and "Traceback" not in error
    gaps = tmp_path / "gaps.txt"  # an empty line: training reads one, and so does predict
    gaps.write_text("how many ?\n\nwho is it ?\n")
    predictions = tmp_path / "gaps.csv"
    argv = ["predict", "--ckpt", str(best), "--input", str(gaps), "--out", str(predictions)]
    with pytest.warns(EmptySentenceWarning, match=r"1 line\(s\) with an empty sentence \(line 2\)"):
        assert main(argv) == 0
    with predictions.open() as handle:
        assert [row["sentence"] for row in csv.DictReader(handle)] == [
            "how many ?",
            "",
            "who is it ?",
        ]
    assert (
        main(["encode", "--ckpt", str(best), "--input", str(bad), "--out", str(tmp_path / "e.csv")])
        == 2
    )
    assert "expected a .npy file name" in capsys.readouterr().err


@pytest.mark.slow
def test_load_from_checkpoint_rebuilds_encoder_keywords_exactly(tmp_path: Path) -> None:
    options = {"hidden_dim": 4, "block_len": 3}
    module = TaskModule(
        "bi_blosan",
        "pair",
        3,
        VOCAB,
        DIM,
        encoder_options=options,
        head_hidden=5,
        labels=("a", "b", "c"),
        lr=0.1,
    )
    trainer = pl.Trainer(
        max_steps=2,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    datamodule = ToyDataModule("pair")
    trainer.fit(module, datamodule=datamodule)
    path = tmp_path / "model.ckpt"
    trainer.save_checkpoint(path)
    loaded = TaskModule.load_from_checkpoint(path)
    assert loaded.encoder.block_len == 3 and loaded.hparams.encoder_options == options
    assert loaded.labels == ["a", "b", "c"] and loaded.trained_precision == "32-true"
    batch = next(iter(datamodule.val_dataloader()))
    module.eval(), loaded.eval()
    with torch.no_grad():
        torch.testing.assert_close(loaded(batch), module(batch), rtol=0, atol=0)


@pytest.mark.slow
def test_tensorboard_logger_as_class_path_and_init_args(trec_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("tensorboard", reason="pip install 'sanbench[tensorboard]' to run this")
    out = tmp_path / "tb"
    logger = {
        "class_path": "lightning.pytorch.loggers.TensorBoardLogger",
        "init_args": {"save_dir": str(out), "name": "tensorboard"},
    }
    run_fit(tiny_run(trec_dir, out, trainer__max_epochs=1, trainer__logger=logger))
    assert list((out / "tensorboard" / "version_0").glob("events.out.tfevents.*"))
    assert (out / "curve.csv").exists()  # the CSV log stays beside it


@pytest.mark.slow  # about 25 s on 2 loaded cores: compiling is slow
def test_compiled_encoder_agrees_with_eager() -> None:
    torch.manual_seed(0)
    module = TaskModule("multi_cnn", "single", 2, VOCAB, DIM, encoder_options={"hidden_dim": 3})
    module.eval()
    batch = next(iter(ToyDataModule("single", n_train=8, n_eval=8).val_dataloader()))
    with torch.no_grad():
        eager = module(batch)
        module.encoder.compile()
        compiled = module(batch)
    torch.testing.assert_close(compiled, eager, rtol=1e-5, atol=1e-6)
    assert not any(".orig_mod" in name or "_orig_mod" in name for name in module.state_dict())
