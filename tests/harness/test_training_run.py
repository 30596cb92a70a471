"""``run_fit`` and ``sanbench fit`` end to end on tiny TREC-format files (real datamodule)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch

from harness.cli import main
from harness.training.run import run_fit

WORDS = {0: "how why", 1: "what thing", 2: "abbreviation stand", 3: "who person",
         4: "where city", 5: "many number"}  # fmt: skip
TINY = {"hidden_dim": 4, "head_hidden": 8, "max_epochs": 2, "dropout": 0.0}


@pytest.fixture(scope="module")
def trec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kim2014")
    rng = random.Random(0)
    for split, count in (("train", 120), ("test", 30)):
        lines = []
        for i in range(count):
            label = i % 6
            filler = " ".join(
                rng.choice(["the", "a", "of", "is"]) for _ in range(rng.randint(1, 4))
            )
            lines.append(f"{label} {rng.choice(WORDS[label].split())} {filler} ?")
        (root / f"TREC.{split}.all").write_text("\n".join(lines) + "\n")
    words = sorted({w for v in WORDS.values() for w in v.split()} | {"the", "a", "of", "is", "?"})
    glove = root / "glove.txt"
    glove.write_text("".join(f"{w} {' '.join(str(rng.uniform(-1, 1)) for _ in range(6))}\n"
                             for w in words))  # fmt: skip
    return root


def test_run_fit_writes_metrics_manifest_and_is_idempotent(trec_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    metrics = run_fit("trec", "multi_cnn", trec_dir, trec_dir / "glove.txt", out, overrides=TINY)
    for key in ("task", "encoder", "seed", "fold", "params", "train_time_per_epoch_s",
                "peak_train_mem_mb", "dev_infer_time_s", "epochs", "steps", "train_acc",
                "dev_acc", "test_acc", "config", "versions"):  # fmt: skip
        assert key in metrics, key
    assert metrics["config"]["hidden_dim"] == 4 and metrics["epochs"] == 2
    assert metrics["params"] == 4 * 6 * (3 + 4 + 5) + 3 * 4 + 12 * 8 + 8 + 8 * 6 + 6  # CNN + head
    assert json.loads((out / "metrics.json").read_text())["test_acc"] == metrics["test_acc"]
    assert json.loads((out / "manifest.json").read_text())["kind"] == "fit"
    (out / "checkpoints" / "last.ckpt").unlink()
    assert run_fit("trec", "multi_cnn", trec_dir, None, out, overrides=TINY) == metrics


def test_cli_fit_applies_overrides(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    extra = tmp_path / "extra.yaml"
    extra.write_text("head_hidden: 8\nmax_epochs: 3\n")
    out = tmp_path / "cli"
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir),
            "--embeddings", str(trec_dir / "glove.txt"), "--out", str(out),
            "--config", str(extra), "--max-epochs", "1", "--hidden-dim", "4",
            "--optimizer", "adadelta", "--lr", "0.5"]  # fmt: skip
    assert main(argv) == 0
    config = json.loads((out / "metrics.json").read_text())["config"]
    assert (config["max_epochs"], config["head_hidden"], config["optimizer"]) == (1, 8, "adadelta")
    assert '"test_acc"' in capsys.readouterr().out


def test_run_fit_gives_bi_blosan_appendix_a_block_length_in_its_checkpoint(
    trec_dir: Path, tmp_path: Path
) -> None:
    """r = block_length(sigma sqrt(2 ln B) + mu) of the training lengths, saved with the weights."""
    from encoders.layers.mblosa import block_length
    from harness.studies.appendix_a import expected_max_length
    from harness.studies.block_length import length_stats
    from harness.training.run import resolve_config

    out = tmp_path / "bi_blosan"
    overrides = {**TINY, "max_epochs": 1}
    run_fit("trec", "bi_blosan", trec_dir, None, out, overrides=overrides)
    batch = resolve_config("trec", "bi_blosan", overrides)["batch_size"]
    stats = length_stats("trec", trec_dir, batch, seed=0)
    expected = block_length(expected_max_length(stats["mean"], stats["std"], batch))
    checkpoint = torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)
    assert checkpoint["state_dict"]["encoder._extra_state"] == {"block_len": expected}
