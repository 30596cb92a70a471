"""Ctrl-C and SIGTERM during training: finish the step in hand, save ``last.ckpt``, then stop.

:func:`stop_on_signals` turns the first SIGINT or SIGTERM into a request that
:class:`StopOnSignal` serves at the next step's (or validation batch's, or epoch's) end: it
writes the checkpoint a resume continues from and raises
:class:`harness.errors.RunInterruptedError` (exit status 130 or 143) naming the command that
resumes. A second signal gets the previous handlers (Ctrl-C twice stops at once).

Lightning also listens for SIGTERM (its handler runs beside ours) and checks for it at points of
its own: after a training batch's hooks and validation, at the end of an epoch's hooks, after a
validation batch. A SIGTERM that lands between our check and Lightning's ends ``fit`` with
Lightning's ``SIGTERMException`` (a ``SystemExit`` of status 0); :meth:`StopOnSignal.on_exception`
saves the checkpoint there too, and :func:`stop_on_signals` turns that exception into the same
:class:`RunInterruptedError`. Each of those points is a state a resume continues exactly from
(``tests/harness/training/test_resume.py``).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import lightning.pytorch as pl
from lightning.pytorch.trainer.states import TrainerFn
from lightning.pytorch.utilities.exceptions import SIGTERMException

from harness.errors import RunInterruptedError
from harness.redaction import resume_command

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopOnSignal(pl.Callback):
    """Saves ``checkpoint`` and raises :class:`RunInterruptedError` once ``signum`` is set."""

    def __init__(self, checkpoint: Path) -> None:
        self.checkpoint = checkpoint
        self.signum: int | None = None
        self.stopped: RunInterruptedError | None = None  # set once the checkpoint is saved

    def _save(self, trainer: pl.Trainer) -> RunInterruptedError:
        assert self.signum is not None
        name = signal.Signals(self.signum).name
        if trainer.sanity_checking:  # no training state yet: a checkpoint would replay validation
            said = f"{name}: stopped in the sanity check, before training; nothing saved"
        else:
            trainer.save_checkpoint(self.checkpoint, weights_only=False)  # the whole state
            said = (
                f"{name}: training stopped at epoch {trainer.current_epoch}, "
                f"step {trainer.global_step}; saved {self.checkpoint}"
            )
        self.stopped = RunInterruptedError(f"{said}\nresume with: {resume_command()}", self.signum)
        return self.stopped

    def _stop_if_asked(self, trainer: pl.Trainer) -> None:
        if self.signum is not None:
            raise self._save(trainer)

    def on_exception(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, exception: BaseException
    ) -> None:
        """Lightning's own SIGTERM check came first: save here, before the trainer's teardown."""
        if isinstance(exception, SIGTERMException) and self.signum and self.stopped is None:
            self._save(trainer)

    def on_train_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        self._stop_if_asked(trainer)

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        self._stop_if_asked(trainer)

    # before Lightning's own SIGTERM check in validation, which exits with status 0 unsaved
    def on_validation_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.state.fn == TrainerFn.FITTING and not trainer.sanity_checking:
            self._stop_if_asked(trainer)

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if trainer.state.fn == TrainerFn.FITTING and not trainer.sanity_checking:
            self._stop_if_asked(trainer)


@contextlib.contextmanager
def stop_on_signals(callback: StopOnSignal) -> Iterator[None]:
    """While the body runs, SIGINT/SIGTERM set ``callback.signum`` (main thread only); Lightning's
    ``SIGTERMException`` after ``callback`` saved becomes its :class:`RunInterruptedError`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}

    def request_stop(signum: int, frame: object) -> None:
        callback.signum = signum
        for other, handler in previous.items():  # a second signal acts at once
            signal.signal(other, handler)

    for signum in SIGNALS:
        signal.signal(signum, request_stop)
    try:
        yield
    except SIGTERMException:
        if callback.stopped is None:  # not ours to explain (SIGTERM came before this context)
            raise
        raise callback.stopped from None
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def stop_scoring_on_signals(checkpoint: Path) -> Iterator[None]:
    """After training, while the trained model is scored (``validate``, ``test``, ``predict``,
    the timed inference): the first SIGINT or SIGTERM stops at once with a
    :class:`RunInterruptedError` (nothing is lost: the trained weights are in ``checkpoint``,
    and the same command scores them again). Lightning would read a Ctrl-C there as its own
    "graceful shutdown" and exit 1."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}

    def stop(signum: int, frame: object) -> None:
        for other, handler in previous.items():  # a second signal acts at once
            signal.signal(other, handler)
        name = signal.Signals(signum).name
        raise RunInterruptedError(
            f"{name}: stopped while scoring the trained model; its weights are kept in "
            f"{checkpoint}\nresume with: {resume_command()}",
            signum,
        )

    for signum in SIGNALS:
        signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
