"""The Lightning callbacks of a fit, one per module, named after it (``StopOnSignal`` in
``stop_on_signal.py``); ``harness.training.trainer_setup`` puts them on the trainer. The
prediction writers, one family of ``BasePredictionWriter``, share ``prediction_writers.py``."""

from harness.training.callbacks.efficiency_callback import EfficiencyCallback
from harness.training.callbacks.end_of_epoch_checkpoint import EndOfEpochCheckpoint
from harness.training.callbacks.epoch_lines import EpochLines
from harness.training.callbacks.non_finite_loss_stop import NonFiniteLossStop
from harness.training.callbacks.prediction_writers import (
    LabelWriter,
    TestPredictionWriter,
    VectorWriter,
)
from harness.training.callbacks.random_states import RandomStates
from harness.training.callbacks.stop_on_signal import StopOnSignal

__all__ = [
    "EfficiencyCallback",
    "EndOfEpochCheckpoint",
    "EpochLines",
    "LabelWriter",
    "NonFiniteLossStop",
    "RandomStates",
    "StopOnSignal",
    "TestPredictionWriter",
    "VectorWriter",
]
