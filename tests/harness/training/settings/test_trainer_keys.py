"""Lightning's Trainer keys typed ``int | float`` (``limit_train_batches``: a number of batches or
a share of the epoch) read an integer's text as an int, whatever CPython's typing cache held when
Lightning's Trainer module was imported (``harness/training/settings/trainer_keys.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Optional, Union

import pytest
from jsonargparse import ArgumentParser

from harness.cli import main
from harness.training.settings.trainer_keys import int_first_signature

# a fresh interpreter where the typing cache holds Optional[Union[float, int]] (rich.progress
# builds it) before Lightning's Trainer module asks for Optional[Union[int, float]], then a fit
FIT_AFTER_RICH = """
import sys
import torch
import rich.progress
from harness.training.settings.fit_cli import FitCLI
from harness.training.settings.run_options import RunOptions

data, out = sys.argv[1:3]
for text in sys.argv[3:]:
    cli = FitCLI(["--task", "trec", "--encoder", "multi_cnn", "--data-dir", data,
                  "--embeddings", f"{data}/glove.txt", "--out", f"{out}/{text}",
                  "--trainer.limit_train_batches", text, "--trainer.max_steps", "2"])
    cli.build()
    print(text, repr(cli.config["trainer"]["limit_train_batches"]),
          repr(cli.trainer.limit_train_batches))
"""


@pytest.mark.slow
def test_a_fit_after_rich_progress_reads_limit_train_batches_2_as_two_batches(
    trec_dir: Path, tmp_path: Path
) -> None:
    words = [sys.executable, "-c", FIT_AFTER_RICH, str(trec_dir), str(tmp_path), "2", "1", "0.5"]
    done = subprocess.run(words, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()[-3:]
    assert lines == ["2 2 2", "1 1 1", "0.5 0.5 0.5"], done.stdout


def float_first(limit=None, steps=1):
    """``limit`` typed as a poisoned cache hands Lightning its ``Optional[Union[int, float]]``."""


# a typing object, not this module's postponed text
float_first.__annotations__.update(limit=Optional[Union[float, int]], steps=int)  # noqa: UP007, UP045


@pytest.mark.parametrize(
    ("text", "expected"), [("2", 2), ("1", 1), ("0", 0), ("1.0", 1.0), ("0.5", 0.5), ("1e3", 1e3)]
)
def test_an_int_first_signature_reads_an_integer_as_int_and_a_decimal_as_float(
    text: str, expected: float
) -> None:
    parser = ArgumentParser(exit_on_error=False)
    signature = int_first_signature(float_first)
    parser.add_argument("--limit", type=signature.parameters["limit"].annotation)
    value = parser.parse_args(["--limit", text]).limit
    assert (value, type(value)) == (expected, type(expected))


def test_fit_help_shows_the_trainer_as_lightning_does(capsys: pytest.CaptureFixture) -> None:
    """The Trainer group's heading is Lightning's ("Customize every aspect of training via
    flags"), not FitTrainer's internal docstring, and each int-or-float key's type is spelled as
    for Lightning's own signature (``Union[int, float]``, not ``int | float``)."""
    assert main(["fit", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert "Customize every aspect of training via flags:" in help_text
    assert "FitTrainer" not in help_text and "module docstring" not in help_text
    assert "int | float" not in help_text
    listed = help_text.index("\n  --trainer.overfit_batches")  # its entry, not the usage line
    overfit = help_text[listed:].split("\n  --trainer.")[1]
    assert "(type: Union[int, float], default: 0.0)" in " ".join(overfit.split())
