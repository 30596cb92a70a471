"""A suite's (and a reproduction's) run rows: ``results-K-of-N.csv``, one file per shard, one
row per run keyed by (task, encoder, replicate); ``summary.csv`` and ``comparison.csv``, the
aggregated tables.

Shards append through :func:`shard_file`; readers take :func:`finished_rows` (the last ``ok``
row of each key over every shard, torn last lines ignored).
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reports.contracts.manifest import FIT_RUN
from reports.contracts.results_file import ResultsFile, complete_bytes

if TYPE_CHECKING:  # pandas loads only when a reader runs (commands' arguments stay light)
    import pandas as pd

RESULTS_GLOB = "results-*-of-*.csv"
SUMMARY = "summary.csv"
COMPARISON = "comparison.csv"
RUNS_FOLDER = "runs"  # runs/<task>/<encoder>/<replicate>/, each a fit run folder
KEY_COLUMNS = ("task", "encoder", "replicate")
# a run row's status: ``ok`` (finished, its metrics in the row) or ``failed`` (its ``error`` cell)
RUN_STATUSES = ("ok", "failed")
RUN_OK, RUN_FAILED = RUN_STATUSES  # each by its name
METRIC_COLUMNS = (
    "params",
    "train_time_per_epoch_s",
    # the epochs trained to their last batch that time averages; 0: none was, the time is the
    # batches run scaled to the epoch's (fit_folder.py)
    "train_epochs_timed",
    # the CPU share the timed epochs' threads got (harness.measurement.cpu_usage)
    "train_cpu_granted",
    "train_contended",  # 1: granted < 0.5, the epoch times are inflated by other processes
    "train_load_avg_before",  # the 1-minute load average when the timed epochs started
    "train_load_avg_after",  # ... and when they ended: the evidence behind a contended mark
    "peak_train_mem_mb",
    "dev_infer_time_s",
    "dev_infer_cpu_granted",
    "dev_infer_contended",  # 1: the dev inference pass got less than half the CPU it asked for
    "dev_infer_load_avg_before",
    "dev_infer_load_avg_after",
    "epochs",  # trained to their last batch (fit_folder.py); a step budget's rest is in steps
    "steps",
    "train_acc",
    "dev_acc",
    "test_acc",
    "dev_pearson",
    "dev_spearman",
    "dev_mse",
    "test_pearson",
    "test_spearman",
    "test_mse",
    # the share of the dev (test) split's sentences its scores are of: 1.0 a whole split, less
    # under --trainer.limit_val_batches (limit_test_batches); blank: recorded before 2026-11-30
    "dev_scored_share",
    "test_scored_share",
)
# Each time column and the column that says its time was contended (harness.measurement.cpu_usage):
# a page or table that shows the time, or a ratio of it, marks it by this.
CONTENDED_COLUMNS = {
    "train_time_per_epoch_s": "train_contended",
    "dev_infer_time_s": "dev_infer_contended",
}
CONTENDED_MARK = " c"  # after a time (or a ratio of it) some of whose runs were contended


def recorded_true(flag: object) -> bool:
    """Whether a flag recorded in a results file is set: ``1``, ``1.0``, ``True``, ``"true"``
    (blank or ``0`` where not), however pandas or a CSV reader typed it."""
    return str(flag).strip().lower() in ("1", "1.0", "true")


def is_contended(flag: object) -> bool:
    """Whether a recorded contended flag says the time was contended: the one rule every table,
    page and figure marks by."""
    return recorded_true(flag)


def contended(runs: pd.DataFrame, time_column: str) -> pd.Series:
    """Which of ``runs`` were contended while ``time_column`` was timed (False where that was
    not recorded, or ``time_column`` is not a time)."""
    import pandas as pd

    flag = CONTENDED_COLUMNS.get(time_column)
    if flag is None or flag not in runs:
        return pd.Series(False, index=runs.index)
    return runs[flag].map(is_contended).astype(bool)


TIME_PER_EPOCH = "train_time_per_epoch_s"
SCALED_MARK = " e"  # after a time per epoch some of whose runs completed no epoch
SCALED_NOTE = (
    "e: some of the cell's runs trained no whole epoch (a step budget inside the first): their "
    "time per epoch is the time of the batches they ran scaled to the epoch's batches "
    "(train_epochs_timed 0), not a timed full pass"
)


LEGACY_MARK = " o"  # after a time per epoch some of whose runs recorded no train_epochs_timed
LEGACY_NOTE = (
    "o: some of the cell's runs were recorded before 2026-11-30 (no train_epochs_timed): their "
    "time per epoch may average in an epoch a step budget ended early"
)


def legacy_epoch_time(runs: pd.DataFrame) -> pd.Series:
    """Which of ``runs`` have a time per epoch but no ``train_epochs_timed``: recorded before
    2026-11-30, by a mean that counted an epoch a step budget ended inside as a whole one."""
    import pandas as pd

    if TIME_PER_EPOCH not in runs:
        return pd.Series(False, index=runs.index)
    timed = pd.to_numeric(runs[TIME_PER_EPOCH], errors="coerce").notna()
    if "train_epochs_timed" not in runs:
        return timed
    return timed & pd.to_numeric(runs["train_epochs_timed"], errors="coerce").isna()


def scaled_epoch_time(runs: pd.DataFrame) -> pd.Series:
    """Which of ``runs`` trained no whole epoch: their ``train_time_per_epoch_s`` is scaled from
    the batches they ran (False where not recorded: runs before 2026-11-30 averaged in the
    epoch a budget ended inside)."""
    import pandas as pd

    if "train_epochs_timed" not in runs:
        return pd.Series(False, index=runs.index)
    return pd.to_numeric(runs["train_epochs_timed"], errors="coerce") == 0


# Each score column and the share of its split it was scored on: a page or table that shows the
# score marks it by this where that share is below 1.
SCORED_SHARES = {
    **dict.fromkeys(("dev_acc", "dev_pearson", "dev_spearman", "dev_mse"), "dev_scored_share"),
    **dict.fromkeys(("test_acc", "test_pearson", "test_spearman", "test_mse"), "test_scored_share"),
}
PARTIAL_MARK = " p"  # after a dev or test score some of whose runs scored part of the split
PARTIAL_NOTE = (
    "p: some of the cell's runs scored part of the split only, its shortest sentences (of a "
    "pair task, e.g. SICK or SNLI, its shortest pairs by total length; the "
    "loaders sort dev and test by length and --trainer.limit_val_batches or limit_test_batches "
    "below its batches keeps the first; *_scored_share in their rows): not a whole-split score"
)


def partly_scored(runs: pd.DataFrame, score_column: str) -> pd.Series:
    """Which of ``runs`` scored ``score_column`` on part of its split (False where the share
    was not recorded, or ``score_column`` is no dev or test score)."""
    import pandas as pd

    share = SCORED_SHARES.get(score_column)
    if share is None or share not in runs:
        return pd.Series(False, index=runs.index)
    return pd.to_numeric(runs[share], errors="coerce") < 1


# Each time column's prefix in the rows and in metrics.json, and the evidence recorded beside it
# (harness.measurement.cpu_usage): the CPU share its threads got and the load average before and
# after.
TIMED_PREFIXES = {"train_time_per_epoch_s": "train_", "dev_infer_time_s": "dev_infer_"}
EVIDENCE = ("cpu_granted", "load_avg_before", "load_avg_after")
ENVIRONMENT_COLUMNS = ("device", "device_name", "torch", "commit")
COLUMNS = (
    *KEY_COLUMNS,
    "seed",
    "fold",
    "status",
    "error",
    *METRIC_COLUMNS,
    "wall_s",
    *ENVIRONMENT_COLUMNS,
    "run_dir",  # the run's folder relative to the results file's folder (OUT): runs/T/E/R
)
NUMERIC = tuple(c for c in METRIC_COLUMNS if c not in ("epochs", "steps", "train_epochs_timed"))


def shard_path(out_dir: Path, shard_label: str) -> Path:
    """``out_dir/results-K-of-N.csv`` for the shard labelled ``K-of-N``."""
    return Path(out_dir) / f"results-{shard_label}.csv"


def shard_file(out_dir: Path, shard_label: str) -> ResultsFile:
    return ResultsFile(shard_path(out_dir, shard_label), KEY_COLUMNS)


def shard_paths(out_dir: Path) -> list[Path]:
    """Every shard's results file under ``out_dir``."""
    return sorted(Path(out_dir).glob(RESULTS_GLOB))


def run_folder(out_dir: Path, task: str, encoder: str, replicate: str) -> Path:
    return Path(out_dir) / RUNS_FOLDER / task / encoder / replicate


def grid_of(folder: Path, manifest: dict[str, Any]) -> tuple[Path, str] | None:
    """The folder and command of the suite (or reproduction) one of whose runs the fit run
    ``folder`` is (its ``manifest`` recorded by that command, at :func:`run_folder`'s place),
    else None (a run of ``sanbench fit``)."""
    words = str(manifest.get("command") or "").split()  # [cd FOLDER &&] sanbench COMMAND ...
    pairs = itertools.pairwise(words)
    command = next((after for word, after in pairs if word == "sanbench"), FIT_RUN)
    parents = Path(folder).absolute().parents
    if manifest.get("kind") != FIT_RUN or command == FIT_RUN or len(parents) < 4:
        return None
    place = (parents[2].name, parents[1].name, parents[0].name)
    if place != (RUNS_FOLDER, manifest.get("task"), manifest.get("encoder")):
        return None
    return Path(os.path.normpath(Path(folder, *[os.pardir] * 4))), command


def _read_shard(path: Path) -> pd.DataFrame:
    """The file's complete lines (a suite still running may be writing its last one)."""
    import pandas as pd

    data = complete_bytes(path)
    frame = pd.read_csv(io.BytesIO(data)) if data.strip() else pd.DataFrame()
    required = (*KEY_COLUMNS, "status", "run_dir")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}, line 1: header lacks columns {missing}; expected at least "
            f"{', '.join(required)} (the file sanbench wrote)"
        )
    return frame


def failed_rows(out_dir: Path) -> pd.DataFrame:
    """Runs that failed and have not finished since (a ``failed`` row, no ``ok`` row of their
    task, encoder and replicate), the last row of each, with its ``error`` cell."""
    import pandas as pd

    frames = [_read_shard(path) for path in shard_paths(out_dir)]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if rows.empty:
        return pd.DataFrame(columns=[*KEY_COLUMNS, "status", "error"])
    keys = list(KEY_COLUMNS)
    finished = rows.loc[rows["status"] == RUN_OK, keys].drop_duplicates()
    failed = rows[rows["status"] == RUN_FAILED].drop_duplicates(keys, keep="last")
    failed = failed.merge(finished, on=keys, how="left", indicator=True)
    return failed[failed["_merge"] == "left_only"].drop(columns="_merge").reset_index(drop=True)


def finished_rows(out_dir: Path) -> pd.DataFrame:
    """Finished runs of every shard (the last ``ok`` row per task, encoder, replicate);
    ``FileNotFoundError`` without a shard file, ``ValueError`` when one has no header."""
    import pandas as pd

    paths = shard_paths(out_dir)
    if not paths:
        raise FileNotFoundError(
            f"{out_dir}: no {RESULTS_GLOB}; pass the --out folder of `sanbench suite`"
        )
    rows = pd.concat([_read_shard(path) for path in paths], ignore_index=True)
    ok = rows[rows["status"] == RUN_OK].drop_duplicates(list(KEY_COLUMNS), keep="last")
    ok = ok.reset_index(drop=True)
    for column in NUMERIC:
        if column in ok:
            ok[column] = pd.to_numeric(ok[column], errors="coerce")
    return ok


def runs_cell(n: int, missing: Sequence[str], task: str, encoder: str) -> str:
    """A summary row's runs: ``2`` or, when runs of the grid's for it have no row, ``2, 1
    missing`` (its mean is over fewer runs than the grid's)."""
    lacking = sum(run.split("/")[:2] == [task, encoder] for run in missing)
    return f"{n}, {lacking} missing" if lacking else str(n)


def missing_note(grid_size: int, missing: Sequence[str]) -> str:
    """``2 of 3 runs of the grid ran; missing: trec/bilstm/seed2.``"""
    ran = grid_size - len(missing)
    return f"{ran} of {grid_size} runs of the grid ran; missing: {', '.join(missing)}."
