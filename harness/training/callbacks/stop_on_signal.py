"""Ctrl-C and SIGTERM during training: finish the step in hand (and the validation due after
it), save ``last.ckpt``, then stop; after training, stop at once.

:func:`stop_on_signals` turns the first SIGINT or SIGTERM into a request that
:class:`StopOnSignal` serves at the first of these points: the end of a step before the
epoch's last after which no validation is due; the end of a validation inside an epoch (the
step's, or one asked for during it); the end of an epoch (after its last step and that step's
validation, if any). A step is an optimizer step: inside one whose gradients accumulate over
several batches, the request waits for its last (:func:`step_unfinished`). There it writes the
checkpoint a resume continues from and raises :class:`harness.errors.RunInterruptedError`
(exit status 130 or 143) naming the command that resumes. A second signal gets the previous
handlers (Ctrl-C twice stops at once; in a job, its handlers absorb a second SIGTERM or SIGINT:
:class:`harness.interrupts.TerminatedOnce`).

Lightning resumes a checkpoint saved at a step's end after that step's validation, and one
saved inside a validation without it: the run would lose the validation's ``curve.csv`` row
and its chance at the best checkpoint. ``ModelCheckpoint`` saves the best at the end of a
validation inside an epoch and at the end of an epoch for the epoch's last validation; so
:class:`StopOnSignal` is a ``Checkpoint`` (Lightning runs those last, in their order) listed
after the best-on-dev one, and serves the epoch's last validation at the epoch's end.
Lightning also listens for SIGTERM and stops inside validation at a check of its own; once
training starts, SIGTERM is this module's only (:meth:`StopOnSignal.on_train_start`). Before
that (a sanity check), Lightning's ``SIGTERMException`` becomes the same
:class:`RunInterruptedError`. ``tests/harness/training/test_resume.py`` stops and resumes at
every step and inside every validation of short runs.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import lightning.pytorch as pl
from lightning.pytorch.callbacks import Checkpoint
from lightning.pytorch.trainer.states import TrainerFn
from lightning.pytorch.utilities.exceptions import SIGTERMException

from harness.errors import RunInterruptedError
from harness.interrupts import TerminatedOnce
from harness.redaction import resume_command
from harness.training.checkpoint_position import (
    budget_ends_epoch_early,
    budget_reached,
    served_at_epoch_end,
    served_at_validation_end,
    step_unfinished,
)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopOnSignal(Checkpoint):
    """Saves ``checkpoint`` and raises :class:`RunInterruptedError` once ``signum`` is set, at
    the first step's end, validation's end or epoch's end where a resume repeats nothing and
    skips nothing. List it after every other checkpoint callback."""

    def __init__(self, checkpoint: Path) -> None:
        self.checkpoint = checkpoint
        self.signum: int | None = None
        self.handler: Callable[[int, object], None] | None = None  # set by stop_on_signals
        self.stopped: RunInterruptedError | None = None  # set once the checkpoint is saved

    def _save(self, trainer: pl.Trainer, write: bool = True) -> RunInterruptedError:
        """The checkpoint (unless ``write`` is False: ``last.ckpt`` already holds this state)
        and the error that stops the run."""
        assert self.signum is not None
        name = signal.Signals(self.signum).name
        saved = not trainer.sanity_checking
        if not saved:  # no training state yet: a checkpoint would replay validation
            said = f"{name}: stopped in the sanity check, before training; nothing saved"
        else:
            if write:
                trainer.save_checkpoint(self.checkpoint, weights_only=False)  # the whole state
            said = (
                f"{name}: training stopped at epoch {trainer.current_epoch}, "
                f"step {trainer.global_step}; saved {self.checkpoint.absolute()}"
            )
        message = f"{said}\nresume with: {resume_command()}"
        self.stopped = RunInterruptedError(message, self.signum, saved=saved)
        return self.stopped

    def _stop_if_asked(self, trainer: pl.Trainer) -> None:
        """Save and stop; at the step that ends the budget, stop after training's end instead:
        Lightning then ends the epoch (its logged row, its console line) and trains no more."""
        if self.signum is not None and self.stopped is None:
            stopped = self._save(trainer)
            if not budget_reached(trainer):
                raise stopped

    def on_exception(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, exception: BaseException
    ) -> None:
        """Lightning's own SIGTERM check came first (before training): save here, before the
        trainer's teardown."""
        if isinstance(exception, SIGTERMException) and self.signum and self.stopped is None:
            self._save(trainer)

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """SIGTERM is ours again: Lightning's handler (installed as ``fit`` starts; it restores
        ours at its end) would stop mid-validation."""
        if self.handler is not None and self.signum is None:
            signal.signal(signal.SIGTERM, self.handler)

    def on_train_batch_end(
        self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: object, batch: object,
        batch_idx: int,
    ) -> None:  # fmt: skip
        if not served_at_epoch_end(trainer, batch_idx) and not step_unfinished(trainer):
            self._stop_if_asked(trainer)

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """Saves here, and stops at the next epoch's start or training's end: Lightning logs the
        epoch's training metrics (its ``metrics.csv`` row) after every epoch-end hook."""
        if self.signum is not None and self.stopped is None:
            # an epoch the budget ended early is saved at its last step (EndOfEpochCheckpoint)
            self._save(trainer, write=not budget_ends_epoch_early(trainer))

    def on_train_epoch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.stopped is not None:
            raise self.stopped

    def on_train_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        if self.stopped is not None:
            raise self.stopped

    def on_validation_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        """A stop asked before or during a validation inside the epoch
        (:func:`served_at_validation_end`)."""
        fitting = trainer.state.fn == TrainerFn.FITTING and not trainer.sanity_checking
        if fitting and served_at_validation_end(trainer):
            self._stop_if_asked(trainer)


@contextlib.contextmanager
def stop_on_signals(callback: StopOnSignal) -> Iterator[Callable[[], None]]:
    """While the body runs, SIGINT/SIGTERM set ``callback.signum`` (main thread only); Lightning's
    ``SIGTERMException`` after ``callback`` saved becomes its :class:`RunInterruptedError`.

    The body calls the function it is given once training has ended (``Trainer.fit`` returned):
    a signal that came after ``callback`` could last serve it (in ``on_train_end``, Lightning's
    teardown) stops then, and any later one (while the trained model is scored: ``validate``,
    ``test``, ``predict``, the timed inference) at once, with a :class:`RunInterruptedError`
    that names ``callback.checkpoint`` (nothing is lost: it holds the trained weights, and the
    same command scores them again). Lightning would read a Ctrl-C while scoring as its own
    "graceful shutdown" and exit 1; one after training was swallowed (#54)."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
    trained: list[bool] = []  # set by training_ended

    def request_stop(signum: int, frame: object) -> None:
        callback.signum = signum
        for other, handler in previous.items():  # a second signal acts at once
            signal.signal(other, handler)
        for handler in previous.values():  # a job's: they absorb a second signal
            if isinstance(handler, TerminatedOnce):
                handler.stop_under_way()
        if trained:
            raise _scoring_stopped(callback.checkpoint, signum)

    def training_ended() -> None:
        trained.append(True)  # first: a signal from now on raises in request_stop
        if callback.signum is not None:
            raise _scoring_stopped(callback.checkpoint, callback.signum)

    for signum in SIGNALS:
        signal.signal(signum, request_stop)
    callback.handler = request_stop
    try:
        yield training_ended
    except SIGTERMException:
        if callback.stopped is None:  # not ours to explain (SIGTERM came before this context)
            raise
        raise callback.stopped from None
    finally:
        callback.handler = None
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _scoring_stopped(checkpoint: Path, signum: int) -> RunInterruptedError:
    """A stop after training: the trained weights are in ``checkpoint``."""
    name = signal.Signals(signum).name
    return RunInterruptedError(
        f"{name}: stopped while scoring the trained model; its weights are kept in "
        f"{checkpoint.absolute()}\nresume with: {resume_command()}",
        signum,
    )
