"""A study's folder (``sanbench tune --out``): ``trials.csv`` (every trial, optuna's
``trials_dataframe``), ``summary.json`` (objectives, best trials, the study's own results),
``best_config.yaml`` (the best trial as a ``sanbench fit --config`` file), figure PNGs and the
manifest."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reports.contracts.atomic import write_json_atomic, write_text_atomic

if TYPE_CHECKING:  # pandas loads only when a reader runs (commands' arguments stay light)
    import pandas as pd

TRIALS = "trials.csv"
SUMMARY = "summary.json"
BEST_CONFIG = "best_config.yaml"
# trials.csv's column that says a training trial's epochs were contended (its times inflated)
CONTENDED_COLUMN = "user_attrs_train_contended"
# a training trial's contention record beside it: the CPU its epochs got and the load around them
GRANTED_COLUMN = "user_attrs_train_cpu_granted"
LOAD_COLUMNS = ("user_attrs_train_load_avg_before", "user_attrs_train_load_avg_after")
# where a training trial ran (its fit's environment), one user attribute each: workers of one
# study may run on several machines
TRIAL_ENVIRONMENT = ("host", "device_name", "cpu_capability", "threads", "torch")


@dataclass(frozen=True)
class StudyFolder:
    """The files of one study folder, with their readers and writers."""

    folder: Path

    @property
    def trials(self) -> Path:
        return self.folder / TRIALS

    @property
    def summary(self) -> Path:
        return self.folder / SUMMARY

    @property
    def best_config(self) -> Path:
        return self.folder / BEST_CONFIG

    def write_trials(self, frame: pd.DataFrame) -> Path:
        return write_text_atomic(self.trials, frame.to_csv(index=False))

    def read_trials(self) -> pd.DataFrame:
        """``trials.csv``: ``FileNotFoundError`` when missing, ``ValueError`` when empty or
        without optuna's ``number`` and ``state`` columns."""
        import pandas as pd

        if not self.trials.is_file():
            raise FileNotFoundError(
                f"{self.trials} not found: pass the --out folder of `sanbench tune`"
            )
        if not self.trials.read_bytes().strip():
            raise ValueError(f"{self.trials}: empty (the study has written no trial yet)")
        trials = pd.read_csv(self.trials)
        if "number" not in trials or "state" not in trials:
            raise ValueError(
                f"{self.trials}, line 1: header lacks 'number' or 'state'; expected optuna's "
                "trials_dataframe columns (the file sanbench tune writes)"
            )
        return trials

    def write_summary(self, summary: dict[str, Any]) -> Path:
        return write_json_atomic(self.summary, summary)

    def read_summary(self) -> dict[str, Any]:
        """``summary.json``, {} when missing."""
        if not self.summary.is_file():
            return {}
        return json.loads(self.summary.read_text(encoding="utf-8"))

    def write_best_config(self, text: str) -> Path:
        return write_text_atomic(self.best_config, text)

    def data_files(self) -> list[str]:
        """The study's data files a report offers, relative to the folder."""
        return [TRIALS, SUMMARY, BEST_CONFIG]

    def files(self, figures: dict[str, str], with_best_config: bool) -> dict[str, Any]:
        """The manifest's ``files`` entry."""
        best = {"best_config": BEST_CONFIG} if with_best_config else {}
        return {"trials": TRIALS, "summary_json": SUMMARY, **best, "figures": figures}
