"""Stop a run at the first non-finite training loss, before it reaches the weights."""

from __future__ import annotations

import lightning.pytorch as pl
import torch

from harness.errors import RunFailedError


class NonFiniteLossStop(pl.Callback):
    """Raise :class:`RunFailedError` when a training step's loss is nan or inf.

    Checked in ``on_before_backward``: the bad step's gradients never reach the optimizer, so
    ``last.ckpt`` keeps finite weights. Costs one host-device sync per step (on CPU, none).
    Lightning's ``EarlyStopping(check_finite=True)`` checks only at validation, and
    ``detect_anomaly`` slows every backward pass.
    """

    def on_before_backward(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, loss: torch.Tensor
    ) -> None:
        if not bool(torch.isfinite(loss.detach()).all()):
            raise RunFailedError(
                f"the training loss became {loss.detach().float().item()} at step "
                f"{trainer.global_step} (epoch {trainer.current_epoch}); the run is stopped and "
                f"has no result. Lower the learning rate ({learning_rate_option(pl_module)}), or "
                "check the embeddings and data for extreme values"
            )


def learning_rate_option(module: pl.LightningModule) -> str:
    """The option that sets ``module``'s learning rate: ``--optimizer.lr`` for an optimizer
    given by class (``--optimizer``), else the papers' ``--model.lr``."""
    hparams = getattr(module, "hparams", {})
    return "--optimizer.lr" if hparams.get("optimizer_init") else "--model.lr"
