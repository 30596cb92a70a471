"""A trial's fit folder (``harness.studies.fitting``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import optuna
import pytest

from harness.studies.fitting import trial_run_dir
from harness.studies.workers import RUN_DIR_ATTR


def test_a_trials_folder_is_recorded_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check 10y item 3: with ``--out O`` typed in folder M1, a trial's folder was
    recorded as ``O/trials/0002``; a worker of the same study started in M2 "continued" the
    killed trial in M2/O, from scratch, while M1/O held its checkpoint. It is recorded as
    M1/O/trials/0002, which every worker on this machine reads as the same folder."""
    monkeypatch.chdir(tmp_path)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    trial = optuna.create_study().ask()
    found = trial_run_dir(SimpleNamespace(out=Path("O")), trial)
    assert found == tmp_path / "O" / "trials" / "0000"
    trial.set_user_attr(RUN_DIR_ATTR, str(found))
    monkeypatch.chdir(tmp_path.parent)  # another worker's folder: the same trial folder
    assert trial_run_dir(SimpleNamespace(out=Path("O")), trial) == found
