"""The sweep loop: encoders x modes x lengths, one worker process per encoder, rows appended.

Order: for each encoder, for each mode, lengths ascending. One worker measures an encoder's
successive points (torch is imported once per encoder, not once per point) and is restarted
after an OOM or a crash. After an ``oom`` at length L, longer lengths of that encoder and mode
are written as ``skipped_oom`` rows unless ``skip_after_oom`` is off. Every row is flushed as it
is measured; on resume every recorded row (ok, oom, skipped_oom, error) counts as done, so a
resumed sweep adds only missing points and never a duplicate.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from harness.profiling.child import WorkerDiedError, WorkerProcess
from harness.profiling.measure import Point
from harness.results import ResultsFile

CSV_NAME = "profile.csv"
LOG_NAME = "worker.log"
KEY_COLUMNS = ("encoder", "seq_len", "mode")
METRIC_COLUMNS = (
    "time_ms_median",
    "time_ms_iqr",
    "time_blocks",
    "peak_mem_mb",
    "peak_rss_mb",
    "gpu_process_mem_mb",
    "params",
    "flops",
    "tflops",
)
ENV_COLUMNS = ("device_name", "torch", "cuda", "python", "threads", "allocator", "commit")
COLUMNS = (
    *KEY_COLUMNS,
    "batch_size",
    "dim",
    "device",
    "dtype",
    "status",
    *METRIC_COLUMNS,
    "max_memory_mb",
    "message",
    *ENV_COLUMNS,
    "measured_at",
)
# Settings that define one comparison: a CSV never mixes two values of any of them.
COMPARISON_COLUMNS = ("device", "dtype", "batch_size", "dim", "allocator")
DONE_STATUSES = ("ok", "oom", "skipped_oom", "error")


@dataclass(frozen=True)
class SweepConfig:
    encoders: tuple[str, ...]
    lengths: tuple[int, ...]
    modes: tuple[str, ...]
    batch_size: int
    dim: int
    device: str
    dtype: str
    repeats: int
    max_memory_mb: float | None
    allocator: str
    preload: str | None
    imports: tuple[str, ...] = ()
    skip_after_oom: bool = True

    def points(self) -> Iterator[Point]:
        for encoder, mode, seq_len in itertools.product(self.encoders, self.modes, self.lengths):
            yield Point(encoder, seq_len, mode, self.batch_size, self.dim)

    def comparison(self) -> dict[str, str]:
        """The values this run writes in the ``COMPARISON_COLUMNS``."""
        values = {name: str(getattr(self, name)) for name in COMPARISON_COLUMNS}
        return {**values, "device": self.device.split(":")[0]}


def check_compatible(rows: list[dict[str, str]], config: SweepConfig, path: Path) -> None:
    """Refuse to append rows of another comparison (device, dtype, shape, allocator) to a CSV."""
    wanted = config.comparison()
    for name, value in wanted.items():
        recorded = sorted({row[name] for row in rows} - {value})
        if recorded:
            raise ValueError(
                f"{path}: recorded rows have {name}={', '.join(recorded)} but this run would "
                f"write {name}={value}; one profile.csv holds one comparison. Resume with the "
                f"same settings (e.g. --allocator {rows[0]['allocator']}) or use another --out."
            )


def _format(value: Any) -> Any:
    return float(f"{value:.6g}") if isinstance(value, float) else ("" if value is None else value)


def make_row(
    point: Point, config: SweepConfig, env: Mapping[str, str], reply: Mapping[str, Any]
) -> dict[str, Any]:
    row = {
        **asdict(point),
        "device": config.comparison()["device"],
        "dtype": config.dtype,
        "status": reply["status"],
        **{name: reply.get(name) for name in METRIC_COLUMNS},
        "max_memory_mb": config.max_memory_mb,
        "message": reply.get("message", ""),
        **{name: env[name] for name in ENV_COLUMNS},
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    return {name: _format(row[name]) for name in COLUMNS}


def describe(row: Mapping[str, Any]) -> str:
    head = f"{row['encoder']:>14} L={row['seq_len']:<4} {row['mode']:<5} {row['status']:<11}"
    if row["status"] != "ok":
        return f"{head} {str(row['message'])[:90]}"
    return f"{head} {row['time_ms_median']:>10.2f} ms  {row['peak_mem_mb']:>10.1f} MB"


class Sweep:
    """Runs ``config`` into ``out/profile.csv`` (resuming whatever is already there)."""

    def __init__(self, config: SweepConfig, out: Path, env: Mapping[str, str], console: Console):
        self.config = config
        self.out = out
        self.env = dict(env)
        self.console = console
        self.results = ResultsFile(out / CSV_NAME, KEY_COLUMNS)
        rows = self.results.rows()
        check_compatible(rows, config, self.results.path)
        self.done = {self.results.key(row) for row in rows}
        # (encoder, mode) -> shortest length that ran out of memory
        self.oom_at: dict[tuple[str, str], int] = {}
        for row in rows:
            if row["status"] in ("oom", "skipped_oom"):
                self._note_oom(row["encoder"], row["mode"], int(row["seq_len"]))
        self.worker: WorkerProcess | None = None

    def _note_oom(self, encoder: str, mode: str, seq_len: int) -> None:
        key = (encoder, mode)
        self.oom_at[key] = min(seq_len, self.oom_at.get(key, seq_len))

    def todo(self) -> list[Point]:
        return [p for p in self.config.points() if self.results.key(asdict(p)) not in self.done]

    def _worker(self, encoder: str) -> WorkerProcess:
        if self.worker is None:
            config = {
                "encoder": encoder,
                "device": self.config.device,
                "dtype": self.config.dtype,
                "dim": self.config.dim,
                "max_memory_mb": self.config.max_memory_mb,
                "imports": list(self.config.imports),
            }
            try:
                self.worker = WorkerProcess(config, self.config.preload, self.out / LOG_NAME)
            except WorkerDiedError as died:
                raise RuntimeError(f"worker for {encoder!r} failed to start: {died}") from None
            self.env.update(self.worker.ready["environment"])
        return self.worker

    def _retire_worker(self, kill: bool = False) -> None:
        if self.worker is not None:
            self.worker.kill() if kill else self.worker.stop()
            self.worker = None

    def measure(self, point: Point) -> dict[str, Any]:
        oom_len = self.oom_at.get((point.encoder, point.mode))
        if self.config.skip_after_oom and oom_len is not None and point.seq_len > oom_len:
            return {"status": "skipped_oom", "message": f"out of memory at L={oom_len}"}
        worker = self._worker(point.encoder)
        request = {"point": asdict(point), "dtype": self.config.dtype}
        try:
            reply = worker.request({**request, "repeats": self.config.repeats})
        except WorkerDiedError as died:
            self.worker = None
            reply = {"status": died.status, "message": str(died)}
        if reply["status"] == "oom":
            self._note_oom(point.encoder, point.mode, point.seq_len)
            self._retire_worker()
        return reply

    def run(self, progress: bool = True) -> int:
        """Measure every missing point; returns how many rows were written."""
        todo = self.todo()
        columns = (
            TextColumn("{task.description:<28}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        bar = Progress(*columns, console=self.console, disable=not progress)
        try:
            with bar:
                task = bar.add_task("profile", total=len(todo))
                for index, point in enumerate(todo):
                    label = f"{point.encoder} L={point.seq_len} {point.mode}"
                    bar.update(task, description=label)
                    row = make_row(point, self.config, self.env, self.measure(point))
                    self.results.append(row)
                    bar.advance(task)
                    self.console.print(describe(row), highlight=False)
                    following = todo[index + 1] if index + 1 < len(todo) else None
                    if following is None or following.encoder != point.encoder:
                        self._retire_worker()
        finally:
            self._retire_worker(kill=True)
        return len(todo)
