"""``BatchMean``: an epoch's loss as ``LightningModule.log(on_epoch=True)`` reduces it, held in a
metric whose state a checkpoint can carry."""

from __future__ import annotations

import torch
from torchmetrics import Metric


class BatchMean(Metric):
    """The mean of a per-batch value weighted by the batch's size: Lightning's epoch mean, the
    same float32 sum and integer count (bit for bit), in a state that is the module's own.

    Lightning keeps the mean of a value logged as a tensor in its loop's results, which no
    checkpoint holds: a run stopped inside an epoch and resumed reported the mean of the batches
    after the resume only (#54). torchmetrics' ``MeanMetric`` ignores its weights under
    ``nan_strategy="disable"``, and drops a NaN loss otherwise."""

    full_state_update = False

    def __init__(self) -> None:
        super().__init__()
        self.total: torch.Tensor
        self.count: torch.Tensor
        self.add_state("total", torch.tensor(0.0), dist_reduce_fx="sum")
        self.add_state("count", torch.tensor(0), dist_reduce_fx="sum")

    def update(self, value: torch.Tensor, batch_size: int) -> None:
        value = value.detach()
        if value.dtype not in (torch.float32, torch.float64):
            value = value.to(self.total.dtype)
        self.total = self.total + value * batch_size
        self.count = self.count + batch_size

    def compute(self) -> torch.Tensor:
        return self.total / self.count
