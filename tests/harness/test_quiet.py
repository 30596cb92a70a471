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
    logger.info("a line that stays")
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
