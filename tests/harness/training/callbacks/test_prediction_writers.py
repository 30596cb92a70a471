"""The prediction writers take batches on whatever device the model runs on."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch

from harness.training.callbacks.prediction_writers import TestPredictionWriter as PredictionWriter
from harness.training.callbacks.prediction_writers import VectorWriter


class OnAnotherDevice(torch.Tensor):
    """A tensor that, like a GPU's, cannot be turned into numpy before it is copied to the CPU
    (``.cpu()`` gives a plain CPU tensor)."""

    def numpy(self, *args, **kwargs):
        raise TypeError("can't convert cuda:0 device type tensor to numpy")

    def cpu(self, *args, **kwargs):
        return self.as_subclass(torch.Tensor).clone()


def test_encode_writes_vectors_of_a_batch_whose_index_is_on_the_gpu(tmp_path: Path) -> None:
    """Lightning moves the batch to the model's device (``accelerator="auto"``): the writer
    reads the batch's sentence indices from there (issue: `encode` crashed on a GPU)."""
    writer = VectorWriter(tmp_path / "vectors.npy", count=4)
    index = torch.tensor([2, 0]).as_subclass(OnAnotherDevice)
    pooled = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    writer.write_on_batch_end(None, None, pooled, None, {"index": index}, 0, 0)
    writer.on_predict_epoch_end(None, None)
    vectors = np.load(tmp_path / "vectors.npy")
    assert vectors.tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]


# --- a user's file of any name beside --out is never opened (issue 54.6) ------------------------

TRAINER = SimpleNamespace(is_global_zero=True)
BATCH = {
    "index": torch.tensor([0, 1]),
    "mask": torch.ones(2, 3, dtype=torch.bool),
    "label": torch.tensor([1, 0]),
}


def test_predict_never_opens_a_file_named_like_its_temporary(tmp_path: Path) -> None:
    """On bae682d a user's ``.preds.csv.tmp`` was truncated and renamed into preds.csv, and a
    symlink ``.preds2.csv.tmp -> target.txt`` had the predictions written into target.txt."""
    (tmp_path / ".preds.csv.tmp").write_text("PRECIOUS user notes\n")
    (tmp_path / "target.txt").write_text("PRECIOUS target\n")
    (tmp_path / ".preds2.csv.tmp").symlink_to(tmp_path / "target.txt")
    for name in ("preds.csv", "preds2.csv"):
        writer = PredictionWriter(tmp_path / name)
        writer.on_predict_epoch_start(TRAINER, SimpleNamespace(kind="single"))
        writer.write_on_batch_end(TRAINER, None, torch.tensor([[0.1, 0.9], [0.8, 0.2]]), None,
                                  BATCH, 0, 0)  # fmt: skip
        writer.on_predict_epoch_end(TRAINER, None)
        assert (tmp_path / name).read_text() == "index,length,label,prediction\n0,3,1,1\n1,3,0,0\n"
    assert (tmp_path / ".preds.csv.tmp").read_text() == "PRECIOUS user notes\n"
    assert (tmp_path / "target.txt").read_text() == "PRECIOUS target\n"
    assert (tmp_path / ".preds2.csv.tmp").is_symlink()
    assert len(list(tmp_path.iterdir())) == 5  # no temporary file left


def test_a_failed_predict_leaves_no_temporary_and_the_users_file_in_place(tmp_path: Path) -> None:
    (tmp_path / ".preds.csv.tmp").write_text("PRECIOUS user notes\n")
    writer = PredictionWriter(tmp_path / "preds.csv")
    writer.on_predict_epoch_start(TRAINER, SimpleNamespace(kind="single"))
    writer.on_exception(TRAINER, None, KeyboardInterrupt())
    assert [p.name for p in tmp_path.iterdir()] == [".preds.csv.tmp"]
    assert (tmp_path / ".preds.csv.tmp").read_text() == "PRECIOUS user notes\n"


def test_encode_never_opens_a_file_named_like_its_temporary(tmp_path: Path) -> None:
    (tmp_path / ".vectors.tmp.npy").write_text("PRECIOUS user notes\n")
    (tmp_path / "target.txt").write_text("PRECIOUS target\n")
    (tmp_path / ".vectors2.tmp.npy").symlink_to(tmp_path / "target.txt")
    for name in ("vectors.npy", "vectors2.npy"):
        writer = VectorWriter(tmp_path / name, count=2)
        writer.write_on_batch_end(None, None, torch.eye(2), None, {"index": BATCH["index"]}, 0, 0)
        writer.on_predict_epoch_end(None, None)
        assert np.load(tmp_path / name).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert (tmp_path / ".vectors.tmp.npy").read_text() == "PRECIOUS user notes\n"
    assert (tmp_path / "target.txt").read_text() == "PRECIOUS target\n"
    assert len(list(tmp_path.iterdir())) == 5
