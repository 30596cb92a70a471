"""A model trained at a precision this machine lacks is still usable: ``16-mixed`` (fp16
autocast, a GPU fit's usual setting) on a CPU-only machine (issue 57.9)."""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

import pytest
import torch

from harness.cli import main
from harness.inference.trained_model import PrecisionWarning
from harness.training.fit import run_fit
from tests.harness.training.test_fit import tiny_run


@pytest.mark.slow
def test_a_16_mixed_model_predicts_on_a_cpu_only_machine(trec_dir: Path, tmp_path: Path) -> None:
    """The checkpoint of a CPU fit, saved as a GPU fit at ``16-mixed`` saves it: ``predict``
    runs it in float32 (the CPU has no fp16 autocast; Lightning swapped in bf16 without a word
    sanbench printed, whose 8-bit significand is coarser than fp16's 11), says so in one warning,
    and its labels are the float32 model's."""
    out = tmp_path / "run"
    metrics = run_fit(tiny_run(trec_dir, out, trainer__max_epochs=1))
    fp32 = out / "checkpoints" / metrics["best_checkpoint"]
    checkpoint = torch.load(fp32, weights_only=True)
    checkpoint["precision"] = "16-mixed"
    fp16 = tmp_path / "gpu-16-mixed.ckpt"
    torch.save(checkpoint, fp16)
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("how many ?\nwho is it ?\nwhere is the city ?\n")
    labels = {}
    for name, path in (("fp32", fp32), ("fp16", fp16)):
        predictions = tmp_path / f"{name}.csv"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert main(["predict", "--ckpt", str(path), "--input", str(sentences),
                         "--out", str(predictions)]) == 0  # fmt: skip
        with predictions.open() as handle:
            labels[name] = [row["label"] for row in csv.DictReader(handle)]
        notes = [str(w.message) for w in caught if w.category is PrecisionWarning]
        assert len(notes) == (0 if name == "fp32" else 1)
    assert "trained at 16-mixed" in notes[0] and "runs it in float32 (32-true)" in notes[0]
    assert labels["fp16"] == labels["fp32"] and len(labels["fp32"]) == 3
