"""The prediction writers take batches on whatever device the model runs on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

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
