"""A failed start leaves nothing that blocks the re-run; unreadable checkpoints are bad input;
an interrupted ``predict`` leaves no hidden temporary file."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from harness.errors import InputError
from harness.outdir import is_lock_file
from harness.training.callbacks.prediction_writers import TestPredictionWriter as PredictionWriter
from harness.training.checkpoint_file import check_readable
from harness.training.fit import run_fit
from harness.training.settings.fit_run import FitRun
from harness.training.settings.task_configs import ConfigError


def test_a_fit_refused_at_start_leaves_no_fit_config(tmp_path: Path, trec_dir: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()  # an existing --out: the CLI's empty-folder cleanup does not apply
    bad = FitRun("trec", "bilstm", trec_dir, out, overrides={"trainer.max_steps": -5})
    with pytest.raises(ConfigError, match="max_steps"):
        run_fit(bad)
    # the next start, with any config, is not refused (the writer lock file is no result)
    assert [path for path in out.iterdir() if not is_lock_file(path)] == []


def test_a_truncated_checkpoint_is_refused_by_name(tmp_path: Path) -> None:
    whole = tmp_path / "whole.ckpt"
    torch.save({"state_dict": {"w": torch.zeros(64, 64)}}, whole)
    check_readable(whole, "fix")
    cut = tmp_path / "cut.ckpt"
    cut.write_bytes(whole.read_bytes()[:-100])
    with pytest.raises(InputError, match=r"cut\.ckpt: not a complete checkpoint .*; fix$"):
        check_readable(cut, "fix")


def test_an_interrupted_prediction_leaves_no_hidden_file(tmp_path: Path) -> None:
    writer = PredictionWriter(tmp_path / "predictions.csv")
    trainer = SimpleNamespace(is_global_zero=True)
    writer.on_predict_epoch_start(trainer, SimpleNamespace(kind="single"))
    (hidden,) = tmp_path.iterdir()  # the writer's own, a random name (issue 54.6)
    assert hidden.name.startswith(".predictions.csv.") and hidden.name.endswith(".tmp")
    writer.on_exception(trainer, SimpleNamespace(kind="single"), KeyboardInterrupt())
    assert list(tmp_path.iterdir()) == []
