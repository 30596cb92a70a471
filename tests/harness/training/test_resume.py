"""Exact resume: a run stopped anywhere (a hard kill after any kind of checkpoint, or a signal)
and resumed trains on the same batches, in the same order and with the same dropout masks, as
an uninterrupted one: bit-identical final weights and the same step count. Every run here trains
with dropout on; ``test_kill.py`` does the same with a real SIGKILL of ``sanbench fit``."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from types import SimpleNamespace

import lightning.pytorch as pl
import pandas as pd
import pytest
import torch

from datamodules.datamodule import BenchmarkDataModule
from harness.errors import RunInterruptedError
from harness.training.callbacks.efficiency_callback import EfficiencyCallback
from harness.training.callbacks.stop_on_signal import StopOnSignal, stop_on_signals
from harness.training.curve import write_curve
from harness.training.module import TaskModule
from harness.training.settings.fit_cli import TRAINER_DEFAULTS
from harness.training.settings.run_options import RunOptions
from harness.training.trainer_setup import trainer_arguments

BATCH = 8  # 108 training examples of the tiny TREC files: 14 batches an epoch
DROPOUT = 0.3  # every paper encoder trains with dropout: resume must reproduce its masks


class KilledError(Exception):
    """What a hard kill leaves: the run ends at once, with what its last checkpoint wrote on
    disk and nothing else (no hook saves on an exception that is not a signal's)."""


class Interrupt(pl.Callback):
    """Stops the run like a kill: before step ``step`` or at the start of epoch ``epoch``."""

    def __init__(self, step: int | None = None, epoch: int | None = None) -> None:
        self.step, self.epoch = step, epoch

    def on_train_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.global_step == self.step:
            raise KilledError

    def on_train_epoch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.current_epoch == self.epoch:
            raise KilledError


def _fit(
    trec_dir: Path,
    out: Path,
    budget: dict,
    run: RunOptions | None = None,
    stop: pl.Callback | None = None,
    num_workers: int = 0,
    module_options: dict | None = None,
) -> tuple[TaskModule, pl.Trainer]:
    """One (re)start of a Multi-CNN with dropout on the tiny TREC files, from last.ckpt if any."""
    pl.seed_everything(0)
    datamodule = BenchmarkDataModule(
        "trec", trec_dir, trec_dir / "glove.txt", batch_size=BATCH, seed=0, num_workers=num_workers
    )
    datamodule.setup("fit")
    vocab, dim = datamodule.embedding_matrix.shape
    module = TaskModule(
        "multi_cnn", "single", 6, vocab, dim, encoder_options={"hidden_dim": 4},
        head_hidden=8, dropout=DROPOUT, **(module_options or {}),
    )  # fmt: skip
    module.set_embeddings(datamodule.embedding_matrix)
    extra = trainer_arguments(run or RunOptions(), out, "single", progress_bar=False)
    extra["callbacks"] += [stop] if stop else []
    trainer = pl.Trainer(**{**TRAINER_DEFAULTS, **budget, **extra})
    last = out / "checkpoints" / "last.ckpt"
    stopper = next(c for c in trainer.callbacks if isinstance(c, StopOnSignal))
    with stop_on_signals(stopper):
        trainer.fit(module, datamodule=datamodule, ckpt_path=last if last.exists() else None)
    return module, trainer


def _assert_same_run(resumed: tuple, reference: tuple) -> None:
    (module, trainer), (reference_module, reference_trainer) = resumed, reference
    assert trainer.global_step == reference_trainer.global_step
    assert trainer.current_epoch == reference_trainer.current_epoch
    for key, value in reference_module.state_dict().items():
        assert torch.equal(module.state_dict()[key], value), key


@pytest.fixture(scope="module")
def uninterrupted(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """The uninterrupted run of a budget, trained once per test process."""
    runs: dict[str, tuple[TaskModule, pl.Trainer]] = {}

    def run(budget: str) -> tuple[TaskModule, pl.Trainer]:
        if budget not in runs:
            options = {**BUDGETS, **VALIDATING, **BY_STEPS}[budget][0]
            runs[budget] = _fit(trec_dir, tmp_path_factory.mktemp(budget), options)
        return runs[budget]

    return run


BUDGETS = {  # name: (trainer keywords, batches an epoch)
    "epochs": ({"max_epochs": 3}, 14),
    "steps": ({"max_steps": 33, "max_epochs": -1}, 14),  # ends inside epoch 2
    "short_epochs": ({"max_epochs": 3, "limit_train_batches": 10}, 10),  # Lightning cuts epochs
}
# each kind of checkpoint: its options, and the steps it writes last.ckpt at besides every
# epoch's end (E: batches an epoch)
CHECKPOINTS = {
    "end_of_epoch": (RunOptions(), lambda E: []),
    "every_n_steps": (RunOptions(checkpoint_every_n_steps=5), lambda E: range(5, 100, 5)),
    # every few microseconds of training: after every step
    "every_minutes": (RunOptions(checkpoint_every_minutes=1e-7), lambda E: range(1, 100)),
}
# where the kill lands: a step inside epoch 1 past its first batch, or between epoch 1's end
# (its validation, every end-of-epoch hook) and epoch 2's first batch
KILLS = {
    "mid_epoch": lambda E: (Interrupt(step=E + 8), E + 8),
    "between_epochs": lambda E: (Interrupt(epoch=2), 2 * E),
}


# every pair of a budget, a kind of checkpoint and a kill, in 9 of their 18 combinations (a
# pairwise covering array: over budget x checkpoint, the kill alternates)
PAIRWISE = [
    (budget, checkpoint, sorted(KILLS)[(i + j) % len(KILLS)])
    for i, budget in enumerate(sorted(BUDGETS))
    for j, checkpoint in enumerate(sorted(CHECKPOINTS))
]


@pytest.mark.slow  # 2 short fits each, and the budget's uninterrupted one once per process
@pytest.mark.parametrize(("budget", "checkpoint", "kill"), PAIRWISE)
def test_a_run_killed_after_any_checkpoint_resumes_bit_identically(
    trec_dir: Path, tmp_path: Path, uninterrupted, budget: str, checkpoint: str, kill: str
) -> None:
    trainer_options, epoch_length = BUDGETS[budget]
    reference = uninterrupted(budget)
    run, writes_at = CHECKPOINTS[checkpoint]
    stop, steps_done = KILLS[kill](epoch_length)
    out = tmp_path / "killed"
    with pytest.raises(KilledError):
        _fit(trec_dir, out, trainer_options, run, stop)
    saved = torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)["global_step"]
    # the latest checkpoint of this kind is the one on disk (every kind also ends each epoch)
    written = [*writes_at(epoch_length), *range(epoch_length, 100, epoch_length)]
    assert saved == max(step for step in written if step <= steps_done)
    _assert_same_run(_fit(trec_dir, out, trainer_options, run), reference)


@pytest.mark.slow  # 3 short fits with two loader processes each
def test_a_run_with_loader_workers_resumes_bit_identically(trec_dir: Path, tmp_path: Path) -> None:
    budget = BUDGETS["epochs"][0]
    reference = _fit(trec_dir, tmp_path / "whole", budget, num_workers=2)
    run, out = CHECKPOINTS["every_n_steps"][0], tmp_path / "killed"
    with pytest.raises(KilledError):
        _fit(trec_dir, out, budget, run, Interrupt(step=22), num_workers=2)
    _assert_same_run(_fit(trec_dir, out, budget, run, num_workers=2), reference)


@pytest.mark.slow  # 3 short fits
def test_without_the_saved_generators_dropout_draws_other_masks(
    trec_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above can fail: a resume that does not restore the generators ends elsewhere."""
    from harness.training.callbacks import random_states

    budget = {"max_epochs": 1, "limit_train_batches": 6}
    reference = _fit(trec_dir, tmp_path / "whole", budget)
    run, out = RunOptions(checkpoint_every_n_steps=2), tmp_path / "killed"
    with pytest.raises(KilledError):
        _fit(trec_dir, out, budget, run, Interrupt(step=3))
    monkeypatch.setattr(random_states, "restore_states", lambda states: None)
    with pytest.raises(AssertionError):
        _assert_same_run(_fit(trec_dir, out, budget, run), reference)


class LateSigterm(pl.Callback):
    """Sends SIGTERM from a hook that runs after :class:`StopOnSignal`'s check (the race a
    ``kill`` can land in; Lightning's own check saw it first until #54)."""

    def __init__(self, hook: str, when: int) -> None:
        self.hook = hook
        self.when: int | None = when  # a global step or an epoch; None once sent

    def _kill_if(self, hook: str, counter: int) -> None:
        if hook == self.hook and counter == self.when:
            self.when = None  # once: a second SIGTERM would get the default handler
            os.kill(os.getpid(), signal.SIGTERM)

    def on_train_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        self._kill_if("on_train_batch_end", trainer.global_step)

    def on_train_epoch_end(self, trainer: pl.Trainer, *args: object) -> None:
        self._kill_if("on_train_epoch_end", trainer.current_epoch)

    def on_validation_batch_end(self, trainer: pl.Trainer, *args: object) -> None:
        self._kill_if("on_validation_batch_end", trainer.current_epoch)


@pytest.mark.slow  # 7 short fits
@pytest.mark.parametrize(
    ("hook", "when"),
    [
        ("on_train_batch_end", 19),  # Lightning's check after the batch: mid-epoch 1
        ("on_train_batch_end", 28),  # the last batch of epoch 1, after its validation
        ("on_validation_batch_end", 1),  # after the first dev batch of epoch 1's validation
        ("on_train_epoch_end", 1),  # Lightning's check after epoch 1's hooks
    ],
)
def test_a_sigterm_that_lightning_sees_first_is_saved_and_resumed_exactly(
    trec_dir: Path, tmp_path: Path, uninterrupted, hook: str, when: int
) -> None:
    budget = BUDGETS["epochs"][0]
    reference = uninterrupted("epochs")
    out = tmp_path / "stopped"
    with pytest.raises(RunInterruptedError) as stopped:
        _fit(trec_dir, out, budget, stop=LateSigterm(hook, when))
    assert stopped.value.exit_status == 143
    assert "saved" in str(stopped.value) and (out / "checkpoints" / "last.ckpt").exists()
    _assert_same_run(_fit(trec_dir, out, budget), reference)


# short runs whose validations fall after some steps: (trainer keywords, the global steps a
# validation follows); the tiny dev set is 2 batches
VALIDATING = {
    "epoch_end": ({"max_epochs": 2, "limit_train_batches": 3}, (3, 6)),
    "every_2_batches": (
        {"max_epochs": 2, "limit_train_batches": 3, "val_check_interval": 2},
        (2, 5),
    ),
}
# every moment a signal can land: during each step (SIGINT), and during each validation's first
# batch (SIGINT, and SIGTERM, which Lightning also checks for inside a validation)
MOMENTS = [
    pytest.param(budget, where, step, signum, id=f"{budget}-{where}{step}-{signum.name}")
    for budget, (options, validated_after) in VALIDATING.items()
    for where, step, signum in [
        *(
            ("step", step, signal.SIGINT)
            for step in range(options["max_epochs"] * options["limit_train_batches"])
        ),
        *(
            ("validation", step, signum)
            for step in validated_after
            for signum in (signal.SIGINT, signal.SIGTERM)
        ),
    ]
]


class AskToStop(pl.Callback):
    """Sends ``signum`` to this process at the start of global step ``step``'s batch, or of the
    first dev batch of the validation that follows ``step`` steps."""

    def __init__(self, where: str, step: int, signum: signal.Signals) -> None:
        self.where, self.step, self.signum = where, step, signum
        self.sent = False

    def _send(self, where: str, trainer: pl.Trainer) -> None:
        if where == self.where and trainer.global_step == self.step and not self.sent:
            self.sent = True
            os.kill(os.getpid(), self.signum)

    def on_train_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        self._send("step", trainer)

    def on_validation_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.state.fn == "fit":
            self._send("validation", trainer)


def _history(trainer: pl.Trainer) -> tuple[list[dict], str, float, dict]:
    """What a fit reports besides its weights: curve.csv's rows (without their times), the best
    checkpoint's file name and score, and the weights in it (its dev and test scores)."""
    out = Path(trainer.default_root_dir)
    curve = pd.read_csv(write_curve(out)).drop(columns="train_seconds")
    best = next(c for c in trainer.checkpoint_callbacks if getattr(c, "monitor", None))
    weights = torch.load(best.best_model_path, weights_only=True)["state_dict"]
    name, score = Path(best.best_model_path).name, float(best.best_model_score)
    return curve.to_dict("records"), name, score, weights


def _assert_same_history(resumed: tuple, reference: tuple) -> None:
    """The same weights, step and epoch (:func:`_assert_same_run`), curve.csv rows, best
    checkpoint (name, score) and weights in it."""
    _assert_same_run(resumed, reference)
    rows, best, score, weights = _history(resumed[1])
    reference_rows, reference_best, reference_score, reference_weights = _history(reference[1])
    assert rows == reference_rows
    assert (best, score) == (reference_best, reference_score)
    assert all(torch.equal(weights[key], value) for key, value in reference_weights.items())


@pytest.mark.slow  # 2 short fits each: 20 cases in ~2 min at load 7
@pytest.mark.parametrize(("budget", "where", "step", "signum"), MOMENTS)
def test_a_run_stopped_at_any_moment_resumes_with_the_same_validations_and_best_checkpoint(
    trec_dir: Path,
    tmp_path: Path,
    uninterrupted,
    budget: str,
    where: str,
    step: int,
    signum: signal.Signals,
) -> None:
    """Weights, curve.csv's rows, the best checkpoint (name, score, weights: the dev and test
    scores of metrics.json) as the uninterrupted run's, wherever the signal lands."""
    options = VALIDATING[budget][0]
    reference = uninterrupted(budget)
    out = tmp_path / "stopped"
    with pytest.raises(RunInterruptedError) as stopped:
        _fit(trec_dir, out, options, stop=AskToStop(where, step, signum))
    assert stopped.value.exit_status == 128 + signum
    resumed = _fit(trec_dir, out, options)
    _assert_same_history(resumed, reference)


class KillInValidation(pl.Callback):
    """Stops the run like a SIGKILL at the first dev batch of the validation after step ``step``."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_validation_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.state.fn == "fit" and trainer.global_step == self.step:
            raise KilledError


@pytest.mark.slow  # 2 short fits each, and the budget's uninterrupted one once per process
@pytest.mark.parametrize(
    ("budget", "step", "run"),
    [
        # the last validation of each budget, right after a periodic save (#54): epoch 1's end,
        # after the epoch 0 one; inside epoch 1, after epoch 0's end
        ("epoch_end", 6, RunOptions(checkpoint_every_n_steps=3)),
        ("every_2_batches", 5, RunOptions(checkpoint_every_n_steps=5)),
        ("every_2_batches", 5, RunOptions(checkpoint_every_minutes=1e-7)),  # after every step
    ],
    ids=["epoch_end-every_3_steps", "every_2_batches-every_5_steps", "every_2_batches-minutes"],
)
def test_a_kill_inside_a_validation_after_a_periodic_save_resumes_with_that_validation(
    trec_dir: Path, tmp_path: Path, uninterrupted, budget: str, step: int, run: RunOptions
) -> None:
    """A periodic save due at a step a validation follows is written after that validation (and
    after the best-on-dev checkpoint saw it), so a hard kill inside it repeats it on resume."""
    options = VALIDATING[budget][0]
    reference = uninterrupted(budget)
    out = tmp_path / "killed"
    with pytest.raises(KilledError):
        _fit(trec_dir, out, options, run, KillInValidation(step))
    resumed = _fit(trec_dir, out, options, run)
    _assert_same_history(resumed, reference)


# a step budget (Lightning's iteration-based training: max_steps set) over 3-step epochs, a
# validation at each epoch's end: a resume from an epoch-end checkpoint restarts that epoch's end
BY_STEPS = {"steps_3_epochs": ({"max_steps": 9, "max_epochs": -1, "limit_train_batches": 3}, 3)}


class SigintAtStep(pl.Callback):
    """SIGINT at the start of global step ``step``'s batch: served where :class:`StopOnSignal`
    stops next (the epoch's end if ``step`` is an epoch's last batch)."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_start(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.global_step == self.step:
            os.kill(os.getpid(), signal.SIGINT)


def _logged_steps(trainer: pl.Trainer) -> dict[str, list[int]]:
    """The logged steps of each metric, over every attempt's metrics.csv."""
    rows: dict[tuple[str, int], None] = {}
    for log in sorted(Path(trainer.default_root_dir).glob("logs/version_*/metrics.csv")):
        for row in pd.read_csv(log).to_dict("records"):
            logged = (k for k, v in row.items() if pd.notna(v))
            rows.update({(key, int(row["step"])): None for key in logged})
    steps: dict[str, list[int]] = {}
    for key, step in sorted(rows):
        steps.setdefault(key, []).append(step)
    return steps


@pytest.mark.slow  # 2 short fits each, and the budget's uninterrupted one once per process
@pytest.mark.parametrize("stop", ["sigint_at_epoch_end", "kill_between_epochs"])
def test_a_step_budget_resumed_from_an_epoch_end_logs_the_same_steps(
    trec_dir: Path, tmp_path: Path, uninterrupted, capfd: pytest.CaptureFixture, stop: str
) -> None:
    """curve.csv's rows and every metric's logged step as the uninterrupted run's after a resume
    from ``last.ckpt`` written at epoch 0's end (#54: each later row was one step late)."""
    options, epoch_length = BY_STEPS["steps_3_epochs"]
    reference = uninterrupted("steps_3_epochs")
    capfd.readouterr()
    out = tmp_path / "stopped"
    if stop == "sigint_at_epoch_end":
        with pytest.raises(RunInterruptedError):
            _fit(trec_dir, out, options, stop=SigintAtStep(epoch_length - 1))
    else:
        with pytest.raises(KilledError):
            _fit(trec_dir, out, options, stop=Interrupt(epoch=1))
    saved = torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)["global_step"]
    assert saved == epoch_length
    capfd.readouterr()
    resumed = _fit(trec_dir, out, options)
    _assert_same_run(resumed, reference)
    assert _history(resumed[1])[0] == _history(reference[1])[0]
    assert _logged_steps(resumed[1]) == _logged_steps(reference[1])
    # the empty epoch end Lightning runs again on resuming is neither timed nor printed
    assert len(_epoch_seconds(resumed[1])) == len(_epoch_seconds(reference[1])) == 3
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("epoch ")]
    assert [line.split(",")[0] for line in lines] == ["epoch 1: step 6", "epoch 2: step 9"]


class KillAtEpochEnd(pl.Callback):
    """Stops the run like a kill inside epoch ``epoch``'s end, after its last batch (and that
    batch's validation) and before the checkpoint callbacks' end-of-epoch saves."""

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def on_train_epoch_end(self, trainer: pl.Trainer, *args: object) -> None:
        if trainer.current_epoch == self.epoch:
            raise KilledError


# 4 epochs of 3 steps, a validation after every second one, an LR halved after every epoch
VALIDATING_EVERY_2_EPOCHS = {
    "max_epochs": {"max_epochs": 4, "limit_train_batches": 3, "check_val_every_n_epoch": 2},
    "max_steps": {
        "max_steps": 12,
        "max_epochs": -1,
        "limit_train_batches": 3,
        "check_val_every_n_epoch": 2,
    },
}
STEP_LR = {
    "lr_scheduler_init": {
        "class_path": "torch.optim.lr_scheduler.StepLR",
        "init_args": {"step_size": 1, "gamma": 0.5},
    }
}
# each stop after an epoch's last batch that no validation follows: (stop, run, what it raises)
EPOCH_END_STOPS = {
    # a kill after epoch 0's end-of-epoch checkpoint
    "kill_after_epoch_end": (lambda: Interrupt(epoch=1), RunOptions(), KilledError),
    # Ctrl-C during epoch 0's last batch (its save was written before the epoch's end)
    "sigint_at_last_batch": (lambda: SigintAtStep(2), RunOptions(), RunInterruptedError),
    # a kill inside epoch 2's end, after a periodic save due at its last step (written before
    # the epoch's end, it was the checkpoint resumed)
    "kill_in_epoch_end_after_periodic_save": (
        lambda: KillAtEpochEnd(2),
        RunOptions(checkpoint_every_n_steps=3),
        KilledError,
    ),
}


@pytest.mark.slow  # 3 short fits each
@pytest.mark.parametrize("stop", sorted(EPOCH_END_STOPS))
@pytest.mark.parametrize("budget", sorted(VALIDATING_EVERY_2_EPOCHS))
def test_a_run_stopped_at_an_epoch_end_no_validation_follows_resumes_exactly(
    trec_dir: Path, tmp_path: Path, budget: str, stop: str
) -> None:
    """Weights, the LR scheduler's steps, curve.csv's rows, every metric's logged steps (the
    epoch's training row included) and the epochs' times as the uninterrupted run's (#54: a step
    budget trained one batch more; a save after the last batch lost the epoch's row, line and
    time)."""
    options = VALIDATING_EVERY_2_EPOCHS[budget]
    make_stop, run, raised = EPOCH_END_STOPS[stop]
    reference = _fit(trec_dir, tmp_path / "whole", options, run, module_options=STEP_LR)
    out = tmp_path / "stopped"
    with pytest.raises(raised):
        _fit(trec_dir, out, options, run, make_stop(), module_options=STEP_LR)
    resumed = _fit(trec_dir, out, options, run, module_options=STEP_LR)
    _assert_same_run(resumed, reference)
    learning_rates = [t.optimizers[0].param_groups[0]["lr"] for _, t in (resumed, reference)]
    assert learning_rates[0] == learning_rates[1] == 0.5**5  # Adadelta's 0.5 halved 4 times
    assert _history(resumed[1])[0] == _history(reference[1])[0]
    assert _logged_steps(resumed[1]) == _logged_steps(reference[1])
    assert len(_epoch_seconds(resumed[1])) == len(_epoch_seconds(reference[1])) == 4


def _epoch_seconds(trainer: pl.Trainer) -> list[float]:
    return next(c for c in trainer.callbacks if isinstance(c, EfficiencyCallback)).epoch_seconds


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def test_the_epoch_resumed_mid_way_is_timed_as_that_epoch_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import harness.measurement.latency as latency

    clock = FakeClock()
    monkeypatch.setattr(latency, "time", clock)
    progress = SimpleNamespace(is_last_batch=True)  # each epoch ends at its last batch
    loop = SimpleNamespace(
        restarted_on_epoch_end=False, epoch_loop=SimpleNamespace(batch_progress=progress)
    )
    trainer = SimpleNamespace(fit_loop=loop)
    module = pl.LightningModule()
    before = EfficiencyCallback()
    before.on_train_start(trainer, module)
    for _epoch in range(2):  # two whole epochs of 10 s each
        before.on_train_epoch_start(trainer, module)
        clock.now += 10.0
        before.on_train_epoch_end(trainer, module)
    before.on_train_epoch_start(trainer, module)
    clock.now += 4.0  # 4 s into epoch 2, a checkpoint, then a kill
    saved = before.state_dict()
    clock.now += 100.0  # the restart
    after = EfficiencyCallback()
    after.load_state_dict(saved)
    after.on_train_start(trainer, module)  # Lightning resumes epoch 2 without starting it
    clock.now += 6.0
    after.on_train_epoch_end(trainer, module)
    assert after.epoch_seconds == [10.0, 10.0, 10.0]
    assert after.train_seconds == 30.0


# a step budget ending inside epoch 1 (epochs of 4 steps, 6 steps), a validation each epoch's end
BUDGET_INSIDE_EPOCH = {"max_steps": 6, "max_epochs": -1, "limit_train_batches": 4}


def _tested(trainer: pl.Trainer, module: TaskModule) -> pl.Trainer:
    """``fit``'s scoring after training: the test split with the trained weights."""
    trainer.test(module, datamodule=trainer.datamodule, verbose=False)
    return trainer


@pytest.mark.slow  # 3 short fits, each tested
@pytest.mark.parametrize("stop", ["sigint_at_the_last_step", "kill_before_scoring"])
def test_a_run_stopped_at_the_step_ending_its_budget_logs_what_an_uninterrupted_one_does(
    trec_dir: Path, tmp_path: Path, capfd: pytest.CaptureFixture, stop: str
) -> None:
    """The budget's last step ends inside an epoch: a stop there lost that epoch's training row
    and console line, and a resume (which trains nothing) logged the test scores one step and
    one epoch early (#54 outside check A items 1 and 2)."""
    module, trainer = _fit(trec_dir, tmp_path / "whole", BUDGET_INSIDE_EPOCH)
    reference = _tested(trainer, module)
    capfd.readouterr()
    out = tmp_path / "stopped"
    if stop == "sigint_at_the_last_step":
        with pytest.raises(RunInterruptedError):
            _fit(trec_dir, out, BUDGET_INSIDE_EPOCH, stop=SigintAtStep(5))
    else:  # trained to the end, killed before its test scores were logged
        _fit(trec_dir, out, BUDGET_INSIDE_EPOCH)
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("epoch ")]
    assert [line.split(",")[0] for line in lines] == ["epoch 0: step 4", "epoch 1: step 6"]
    module, trainer = _fit(trec_dir, out, BUDGET_INSIDE_EPOCH)
    resumed = _tested(trainer, module)
    assert (resumed.global_step, resumed.current_epoch) == (6, 2)
    assert _logged_steps(resumed) == _logged_steps(reference)
