"""``profile.csv``: one row per (encoder variant, sequence length, mode) of ``sanbench profile``.

``predicted_error_pct`` is the prediction's error against a measured row's peak, 100 x (predicted /
measured - 1), the eager step's peak when compiled (empty without both; older files read as empty).
``predicted_leaves_out`` is empty when ``peak_mem_mb_predicted`` counts everything the step holds;
otherwise it names the kernels whose inside memory the prediction leaves out and why (the
prediction is then a lower bound). ``attention_tiles`` says which tiles a chunked tanh attention
ran ("compiled tiles of 32", "eager tiles of 4"; empty for other encoders);
``attention_ns_per_pair`` is the time its compiled tiles took per attended (query, key, feature) in
the profiled step, ``attention_floor_ns_per_pair`` one pass of the cheapest such work on the same
CPU, measured in the same process (``harness.measurement.attention_cost``; a step makes
:data:`TILE_PASSES` passes over the pairs); both empty where no compiled tile ran.

The sweep appends rows through :func:`results_file` (keyed by :data:`KEY_COLUMNS`, resumable);
the report reads them with :func:`read_profile`, which checks the header and types the values.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from reports.contracts.results_file import ResultsFile, complete_bytes

if TYPE_CHECKING:  # pandas loads only when a reader runs (commands' arguments stay light)
    import pandas as pd

PROFILE_CSV = "profile.csv"
# passes over the attended pairs a step's tiles make: the forward's sums; in training also the
# backward's sums over keys and over queries, each recomputing the weights
TILE_PASSES = {"infer": 1, "train": 3}
KEY_COLUMNS = ("encoder", "options", "seq_len", "mode")
# the order of a run's points in every table and page: variant label, mode, length
POINT_ORDER = ["label", "mode", "seq_len"]
METRIC_COLUMNS = (
    "time_ms_median",
    "time_ms_iqr",
    "time_blocks",
    "noisy",
    "cpu_share",
    "cpu_granted",
    "contended",
    "load_avg_before",
    "load_avg_after",
    "peak_mem_mb",
    "peak_mem_mb_predicted",
    "predicted_error_pct",
    "predicted_leaves_out",
    "attention_tiles",
    "attention_ns_per_pair",
    "attention_floor_ns_per_pair",
    "peak_rss_mb",
    "gpu_process_mem_mb",
    "params",
    "flops",
    "tflops",
    "compile_s",
    "eager_time_ms_median",
    "eager_peak_mem_mb",
)
ENVIRONMENT_COLUMNS = (
    "device_name",
    "torch",
    "cuda",
    "python",
    "threads",
    "cpu_count",
    "allocator",
    "commit",
)
COLUMNS = (
    *KEY_COLUMNS,
    "batch_size",
    "dim",
    "device",
    "dtype",
    "compile",
    "status",
    *METRIC_COLUMNS,
    "max_memory_mb",
    "message",
    *ENVIRONMENT_COLUMNS,
    "measured_at",
)
# what a reader needs; older files lack the OPTIONAL columns and read as if they were empty
REQUIRED = (
    "encoder",
    "seq_len",
    "batch_size",
    "dim",
    "mode",
    "device",
    "dtype",
    "status",
    "time_ms_median",
    "time_ms_iqr",
    "peak_mem_mb",
    "params",
    "flops",
)
# Every status a row of profile.csv has, in the order pages count them; a row of any of them is
# done (a resume never measures its point again). The one place a status is spelled: the harness
# and the reports import these names (tests/test_architecture.py finds a literal elsewhere).
STATUSES = ("ok", "predicted", "oom", "skipped_oom", "error", "contended")
OK, PREDICTED, OOM, SKIPPED_OOM, ERROR, CONTENDED = STATUSES  # each by its name
# Statuses of a point that was measured (its peak memory and time are in the row; a
# ``contended`` one was refused by ``--strict`` for its time, its memory still stands).
MEASURED_STATUSES = (OK, CONTENDED)
OPTIONAL = {
    "options": "",
    "peak_mem_mb_predicted": None,
    "predicted_error_pct": None,
    "predicted_leaves_out": "",
    "attention_tiles": "",
    "attention_ns_per_pair": None,
    "attention_floor_ns_per_pair": None,
    "noisy": False,
    "contended": False,
    "cpu_share": None,
    "cpu_granted": None,
    "load_avg_before": None,
    "load_avg_after": None,
    "eager_time_ms_median": None,
    "eager_peak_mem_mb": None,
}
NUMERIC = (
    "seq_len",
    "time_ms_median",
    "time_ms_iqr",
    "peak_mem_mb",
    "peak_mem_mb_predicted",
    "predicted_error_pct",
    "params",
    "flops",
    "cpu_share",
    "cpu_granted",
    "load_avg_before",
    "load_avg_after",
    "eager_time_ms_median",
    "eager_peak_mem_mb",
    "attention_ns_per_pair",
    "attention_floor_ns_per_pair",
)


def variant_label(encoder: str, options: str) -> str:
    """``disan:attention_impl=chunked`` (``disan`` without options): a variant's one name."""
    return f"{encoder}:{options}" if options else encoder


def profile_csv(folder: Path) -> Path:
    return Path(folder) / PROFILE_CSV


def results_file(folder: Path) -> ResultsFile:
    """The keyed, append-only ``folder/profile.csv`` (rows of :data:`COLUMNS`)."""
    return ResultsFile(profile_csv(folder), KEY_COLUMNS)


def read_profile(folder: Path) -> pd.DataFrame:
    """Every complete row of ``folder/profile.csv``, typed, with a ``label`` column (the
    variant's name); ``FileNotFoundError`` when missing, ``ValueError`` when it has no rows or
    lacks a required column or a length."""
    import pandas as pd

    path = profile_csv(folder)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: pass the folder a `sanbench profile --out` run wrote"
        )
    complete = complete_bytes(path)  # a sweep still running may be writing its last line
    rows = pd.read_csv(io.BytesIO(complete)) if complete.strip() else pd.DataFrame()
    if rows.empty:
        raise ValueError(f"{path}: no complete row yet (the sweep has not measured a point)")
    missing = [c for c in REQUIRED if c not in rows.columns]
    if missing:
        raise ValueError(
            f"{path}, line 1: header lacks columns {missing}; expected at least "
            f"{', '.join(REQUIRED)} (the file `sanbench profile` writes)"
        )
    for column, default in OPTIONAL.items():
        if column not in rows.columns:
            rows[column] = default
    for text in ("options", "predicted_leaves_out", "attention_tiles"):
        rows[text] = rows[text].astype(object).fillna("").astype(str)
    for flag in ("noisy", "contended"):
        rows[flag] = rows[flag].astype(str).str.lower().eq("true")
    rows["label"] = [
        variant_label(e, o) for e, o in zip(rows["encoder"], rows["options"], strict=True)
    ]
    for column in NUMERIC:
        rows[column] = pd.to_numeric(rows[column], errors="coerce")
    bad = rows[rows["seq_len"].isna()]
    if not bad.empty:
        line = int(bad.index[0]) + 2
        raise ValueError(f"{path}, line {line}: seq_len must be an integer")
    return rows
