"""``run:``, the fit config's section for what the harness adds around ``Trainer.fit``."""

from __future__ import annotations

from dataclasses import dataclass

from jsonargparse.typing import ClosedUnitInterval, NonNegativeInt, PositiveFloat, PositiveInt


@dataclass(frozen=True)
class RunOptions:
    """Early stopping, weight averaging, checkpoint interval and compilation of one fit.

    Args:
        early_stopping_patience: validations without a better dev metric before training stops
            (0: off, train to ``trainer.max_epochs``/``max_steps``; the papers give no rule).
        ema_decay: exponential moving average of the weights with this decay (Lightning's
            ``WeightAveraging``); validation, test and checkpoints then use the averaged
            weights. None: off, as none of the papers describe one.
        checkpoint_every_minutes: also write ``checkpoints/last.ckpt`` every this many minutes
            of training, mid-epoch included: a kill loses at most that.
        checkpoint_every_n_steps: every this many optimizer steps instead (wins when set).
        compile: ``torch.compile`` the encoder; its first compile is timed apart from steps.
    """

    early_stopping_patience: NonNegativeInt = 0
    ema_decay: ClosedUnitInterval | None = None
    checkpoint_every_minutes: PositiveFloat = 10.0
    checkpoint_every_n_steps: PositiveInt | None = None
    compile: bool = False
