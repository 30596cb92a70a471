"""A fit run folder (``sanbench fit --out`` and each run of a suite or study)::

fit_config.yaml       the run's complete configuration (``sanbench fit --config`` runs it)
metrics.json          every final metric, efficiency columns, resolved config, versions
                      (``epochs``: the epochs trained to their last batch; ``steps``:
                      every optimizer step, those of an epoch ended inside too;
                      ``train_time_per_epoch_s``: the mean of those epochs, or where
                      none completed (``train_epochs_timed`` 0) the batches run scaled to
                      an epoch's)
manifest.json         {"kind": "fit", ...}
resumes.yaml          each resume under another value of a key a resume may change
                      (``data.max_length``, ...): ``{key: {there: old, now: new}}``
logs/version_N/       Lightning CSV logs, one folder per (re)start
curve.csv             every validation with ``train_seconds`` (Bi-BloSAN Fig. 5)
test_predictions.csv  index, length(s), label, prediction per test example
checkpoints/          last.ckpt (resume; also mid-epoch) and the best-on-dev checkpoint
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reports.contracts.atomic import write_json_atomic, write_text_atomic

if TYPE_CHECKING:  # pandas loads only when a reader runs (commands' arguments stay light)
    import pandas as pd

CONFIG = "fit_config.yaml"
# the sections of a fit config (LightningCLI's layout) that hold keys, not a class
FIT_SECTIONS = ("model", "trainer", "data", "run")
METRICS = "metrics.json"
CURVE = "curve.csv"
PREDICTIONS = "test_predictions.csv"
CHECKPOINTS = "checkpoints"
LAST_CHECKPOINT = "last.ckpt"
RESUMES = "resumes.yaml"
LOGS = "logs"
LOG_GLOB = "version_*/metrics.csv"
CURVE_KEYS = ("epoch", "step", "train_seconds")  # then one column per val_* metric


def replicate_label(seed: int | None, fold: int | None) -> str:
    """``fold3`` for a cross-validation fold, else ``seed3``: a run's replicate, its folder
    name in a suite and its key in the results rows."""
    return f"fold{fold}" if fold is not None else f"seed{seed}"


@dataclass(frozen=True)
class FitRunFolder:
    """The files of one fit run folder, with their readers and writers."""

    folder: Path

    @property
    def config(self) -> Path:
        return self.folder / CONFIG

    @property
    def metrics(self) -> Path:
        return self.folder / METRICS

    @property
    def curve(self) -> Path:
        return self.folder / CURVE

    @property
    def predictions(self) -> Path:
        return self.folder / PREDICTIONS

    @property
    def checkpoints(self) -> Path:
        return self.folder / CHECKPOINTS

    @property
    def last_checkpoint(self) -> Path:
        return self.checkpoints / LAST_CHECKPOINT

    @property
    def logs(self) -> Path:
        return self.folder / LOGS

    def files(self) -> dict[str, str]:
        """The manifest's ``files`` entry: each file's path relative to the folder."""
        return {
            "config": CONFIG,
            "metrics": METRICS,
            "curve": CURVE,
            "logs": f"{LOGS}/{LOG_GLOB}",
            "checkpoints": CHECKPOINTS,
            "predictions": PREDICTIONS,
        }

    def finished(self) -> bool:
        """A run is finished once its metrics are written (they are written last)."""
        return self.metrics.is_file()

    def read_metrics(self) -> dict[str, Any]:
        """``metrics.json``; ``FileNotFoundError`` while the run has not finished."""
        if not self.metrics.is_file():
            raise FileNotFoundError(f"{self.metrics} not found: the fit run has not finished")
        return json.loads(self.metrics.read_text(encoding="utf-8"))

    def write_metrics(self, metrics: Mapping[str, Any]) -> Path:
        return write_json_atomic(self.metrics, dict(metrics))

    def write_curve(self, rows: Iterable[Mapping[str, Any]]) -> Path:
        """``curve.csv`` from validation rows (:data:`CURVE_KEYS` and ``val_*`` metrics)."""
        rows = list(rows)
        columns = [*CURVE_KEYS, *sorted({k for r in rows for k in r if k.startswith("val_")})]
        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        return write_text_atomic(self.curve, text.getvalue())

    def read_curve(self) -> pd.DataFrame:
        """``curve.csv``, empty when missing or header-only."""
        return _read_optional_csv(self.curve)

    def read_predictions(self) -> pd.DataFrame:
        """``test_predictions.csv``, empty when missing or header-only."""
        return _read_optional_csv(self.predictions)


def _read_optional_csv(path: Path) -> pd.DataFrame:
    import pandas as pd

    if not path.is_file() or not path.read_bytes().strip():
        return pd.DataFrame()
    return pd.read_csv(path)
