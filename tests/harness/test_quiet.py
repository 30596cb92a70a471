"""Console noise is dropped at the source: Lightning's device inventory and checkpoint-restore
lines, and the source line under sanbench's own warnings."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import lightning.pytorch as pl
import pytest

from datamodules.text import ReleaseEncodingWarning, read_lines
from harness.quiet import hide_lightning_tips


def test_lightning_device_lines_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    hide_lightning_tips()
    caplog.set_level(logging.INFO)
    pl.Trainer(logger=False, enable_checkpointing=False, enable_progress_bar=False)
    shown = [record.getMessage() for record in caplog.records]
    assert not [message for message in shown if " available: " in message]


def test_checkpoint_restore_lines_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    hide_lightning_tips()
    caplog.set_level(logging.INFO)
    logger = logging.getLogger("lightning.pytorch.utilities.rank_zero")
    logger.info("Restoring states from the checkpoint path at /x/best.ckpt")
    logger.info("Loaded model weights from the checkpoint at /x/best.ckpt")
    logger.info("Restored all states from the checkpoint at /x/last.ckpt")  # a resume (56.13)
    logger.info("`Trainer(limit_train_batches=1)` was configured so 1 batch per epoch will be")
    logger.info("a line that stays")
    assert [record.getMessage() for record in caplog.records] == ["a line that stays"]


def test_torchs_no_cuda_runtime_line_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    """A CUDA build of torch on a CPU machine logs it at every import of cpp_extension (every
    profile worker printed it); this CPU build cannot, so the logger is fed the line itself."""
    hide_lightning_tips()
    caplog.set_level(logging.INFO)
    logger = logging.getLogger("torch.utils.cpp_extension")
    logger.warning("No CUDA runtime is found, using CUDA_HOME='%s'", "/usr/local/cuda")
    logger.warning("a line that stays")
    assert [record.getMessage() for record in caplog.records] == ["a line that stays"]


def test_our_warnings_are_one_line_without_the_source_line(tmp_path: Path) -> None:
    hide_lightning_tips()
    released = tmp_path / "TREC.train.all"
    released.write_bytes(b"1 caf\xe9 ?\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_lines(released)
        warnings.warn("someone else's", UserWarning, stacklevel=1)
    ours, theirs = (
        warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line) for w in caught
    )
    assert ours.startswith(f"warning: {released}: 1 line(s) not UTF-8 (line 1)")
    assert ours.count("\n") == 1 and "ReleaseEncodingWarning" not in ours
    assert "UserWarning: someone else's" in theirs
    assert caught[0].category is ReleaseEncodingWarning


@pytest.mark.slow  # three real commands
def test_no_command_prints_cpp_log_lines_or_lightning_notices(tmp_path: Path) -> None:
    """Issue 32/35: the profiler's kineto lines (``USDT: ... profiler_start``), c10 warnings
    (``[W... CPUAllocator.cpp:245] ...``) and Lightning notices nobody can act on."""
    import subprocess
    import sys

    fixtures = Path(__file__).parents[1] / "datamodules" / "fixtures"
    commands = [
        ["profile", "--predict-only", "--predict-lengths", "64", "--encoders", "bilstm,multi_cnn",
         "--no-report", "--out", str(tmp_path / "profile")],
        ["fit", "--task", "sst2", "--encoder", "multi_cnn", "--data-dir", str(fixtures),
         "--embeddings", str(fixtures / "vectors" / "tiny.glove.txt"),
         "--model.hidden_dim", "4", "--trainer.max_epochs", "1", "--out", str(tmp_path / "fit")],
    ]  # fmt: skip
    commands.append([*commands[1][:-3], "2", "--out", str(tmp_path / "fit")])  # resumed
    for words in commands:
        done = subprocess.run(
            [sys.executable, "-m", "harness.cli", *words], capture_output=True, text=True,
            cwd=Path(__file__).parents[2], timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        noises = ("USDT:", ".cpp:", "Seed set to", "logging interval", "is not empty", "Restored")
        for noise in noises:
            assert noise not in done.stdout + done.stderr, (words[0], noise, done.stderr)


def test_a_warning_said_once_per_command_is_said_once_whatever_its_numbers() -> None:
    """Issue 56 (H17.10): "training ended ... before its first validation" was printed once per
    run of a suite and once per trial of a study; a command says it once (and the next command
    again)."""
    from harness.training.fit import NO_VALIDATION, NoValidationWarning

    def worded(steps: int) -> str:
        return NO_VALIDATION.format(steps=steps, epochs=0, when="due at the first epoch's end")

    def said(steps: list[int]) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for count in steps:
                warnings.warn(NoValidationWarning(worded(count)), stacklevel=1)
        shown = [warnings.formatwarning(w.message, w.category, w.filename, 0) for w in caught]
        return [text for text in shown if text]

    hide_lightning_tips()  # a command starts
    assert said([1, 1, 3]) == [f"warning: {worded(1)}\n"]
    assert said([2]) == []
    hide_lightning_tips()  # the next command
    assert said([2]) == [f"warning: {worded(2)}\n"]


def test_lightnings_sigterm_line_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 56 (H17.11): a SIGTERM to a fit printed Lightning's "[rank: 0] Received SIGTERM: 15"
    above sanbench's own line (which says the signal, the step and the checkpoint)."""
    hide_lightning_tips()
    caplog.set_level(logging.INFO)
    logger = logging.getLogger("lightning.pytorch.trainer.connectors.signal_connector")
    logger.info("[rank: 0] Received SIGTERM: 15")
    logger.info("Requeued SLURM job: 42")
    assert [record.getMessage() for record in caplog.records] == ["Requeued SLURM job: 42"]


def test_lightnings_keyboard_interrupt_line_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    """Outside check 54f, item 1: a Ctrl-C on predict or encode printed an empty line and
    Lightning's "Detected KeyboardInterrupt, attempting graceful shutdown ..." above sanbench's
    "interrupted; nothing was written"."""
    hide_lightning_tips()
    caplog.set_level(logging.INFO)
    logger = logging.getLogger("lightning.pytorch.utilities.rank_zero")
    logger.info("\nDetected KeyboardInterrupt, attempting graceful shutdown ...")
    logger.info("a line of Lightning's that stays")
    kept = [record.getMessage() for record in caplog.records]
    assert kept == ["a line of Lightning's that stays"]


def test_optunas_lines_of_a_surplus_trial_are_dropped(capsys: pytest.CaptureFixture[str]) -> None:
    """Outside check 54l, item 6: a study's surplus trial (past the budget, failed before it
    ran) printed optuna's 'Trial 4 failed with parameters ... SurplusTrialError(...)' and
    'Trial 4 failed with value None.'; optuna's other warnings are still said."""
    from harness.quiet import optuna_one_line_warnings
    from harness.studies.workers import SurplusTrialError

    optuna_one_line_warnings()
    logger = logging.getLogger("optuna.study._optimize")
    error = SurplusTrialError("trial 4 is past the budget of 2 trials")
    logger.warning(f"Trial 4 failed with parameters: {{}} because of: {error!r}.", exc_info=error)
    logger.warning("Trial 4 failed with value None.")
    logger.warning("a warning of optuna's that stays")
    assert capsys.readouterr().err == "optuna: a warning of optuna's that stays\n"
