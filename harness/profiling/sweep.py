"""A sweep run on this machine (:func:`run_sweep`): its device and memory budget resolved here,
its manifest written, then the sweep loop: predictions on meta tensors, then measurements in one
worker process (``harness.profiling.measure`` through ``worker``).

Order: first every point's memory and FLOPs are predicted on meta tensors in two processes
(``harness.memory_prediction.step``; seconds, nothing run at the predicted shapes), and the
predicted-only points are written at once (status ``predicted``). Then one worker process
measures the measured points, encoder after encoder (modes, then lengths ascending); it starts
while the predictions run and is restarted only after an OOM, a CUDA error (after some, every
later CUDA call fails) or a crash. After an ``oom`` at length L, longer lengths of that encoder
and mode are written as ``skipped_oom`` rows unless ``skip_after_oom`` is off. Each measured
row records what CPU its timed steps got and whether they were ``contended``
(``harness.measurement.cpu_usage``); ``strict`` re-measures a contended point up to
``STRICT_RETRIES`` times and then writes it with status ``contended`` instead of ``ok``; the
sweep ends with a note on how many points were contended. Every row is flushed as it is
written; on resume every recorded row counts as done, so a resumed sweep adds only missing
points and never a duplicate.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import time
from collections.abc import Mapping
from contextlib import closing
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from harness.errors import RunFailedError, RunInterruptedError
from harness.interrupts import interrupt_deferred, stop_word
from harness.measurement.cpu_usage import CONTENDED_BELOW
from harness.measurement.machine_memory import available_bytes
from harness.measurement.profiled_step import Point
from harness.measurement.tensor_memory import MB
from harness.memory_prediction.step import Prediction, predict_points
from harness.memory_prediction.value_dependent import short, value_dependent
from harness.profiling.device import resolve_device
from harness.profiling.grid import PRESETS, length_texts, lengths_text
from harness.profiling.sweep_config import STRICT_PAUSE_S, STRICT_RETRIES, SweepConfig
from harness.profiling.sweep_manifest import write_manifest
from harness.profiling.worker_process import WorkerDiedError, WorkerProcess, point_request
from harness.redaction import runnable_line
from reports.contracts.profile_run import (
    COLUMNS,
    CONTENDED,
    ENVIRONMENT_COLUMNS,
    ERROR,
    MEASURED_STATUSES,
    METRIC_COLUMNS,
    OK,
    OOM,
    PREDICTED,
    PROFILE_CSV,
    SKIPPED_OOM,
    TILE_PASSES,
    profile_csv,
    read_profile,
    results_file,
    variant_label,
)

LOG_NAME = "worker.log"
# Meta-tensor predictions run in parallel before anything is timed.
PREDICTION_PROCESSES = min(2, os.cpu_count() or 1)
# Without --max-memory-mb a CPU worker may use this share of the RAM available at start, so a
# too-long point fails an allocation (an ``oom`` row) before the kernel's OOM killer acts.
DEFAULT_CPU_SHARE = 0.8


def run_sweep(
    config: SweepConfig,
    out: Path,
    command: str,
    console: Console | None = None,
    progress: bool = False,
    options: dict[str, Any] | None = None,
    config_file: Path | None = None,
) -> Path:
    """Sweep ``config`` (:func:`on_this_machine`) into ``out`` (resuming its rows) and write its
    manifest, with the ``options`` that made it (and ``config_file``, as :func:`write_manifest`
    takes it); returns ``out``. ``console`` (none: quiet, as
    in a job) gets the sweep's first line and a line per row.

    Raises ``ValueError`` or :class:`InputError` when ``out`` holds another sweep or this
    machine lacks the device (nothing written), :class:`RunInterruptedError` on Ctrl-C or
    SIGTERM (finished rows are kept: :func:`stopped_line`) and :class:`RunFailedError` when the
    measuring worker cannot start.
    """
    console = console or Console(quiet=True)
    config = on_this_machine(config)
    measured, predicted = shown_lengths(config, options)
    measured = "no lengths measured" if config.predict_only else f"L={measured} measured"
    no_prediction = NO_PREDICTION.format(dtype=config.dtype)
    predicted = f"L={predicted} predicted" if config.predicts() else no_prediction
    console.print(
        f"profiling {len(config.encoders)} encoders x {len(config.modes)} modes on "
        f"{config.device} ({config.allocator}, {budget_words(config.max_memory_mb)}): "
        f"{measured}, {predicted} -> {profile_csv(out).absolute()}"
    )
    env = sweep_environment(config)
    sweep = Sweep(config, out, env, console)  # checks that out's rows are of this sweep
    write_manifest(out, config, env, command, options, config_file)
    try:
        sweep.run(progress=progress)
    except (KeyboardInterrupt, RunInterruptedError) as stopped:  # Ctrl-C, SIGTERM (harness.cli)
        signum = getattr(stopped, "signum", signal.SIGINT)
        raise RunInterruptedError(stopped_line(out, signum), signum) from None
    except RuntimeError as error:  # a worker that cannot start (see worker.log)
        raise RunFailedError(str(error)) from None
    return out


def stopped_line(out: Path, signum: int) -> str:
    """What a sweep stopped by ``signum`` says (:func:`stopped_words`) and the command that
    resumes it, runnable from any folder (``cd FOLDER && ...``: until 2026-12-01 it was
    relative to the folder it ran in, issue 54)."""
    resume = runnable_line(["profile", "--resume", "--out", str(out)])
    return f"{stopped_words(out, signum)}. Resume: {resume}"


def stopped_words(out: Path, signum: int) -> str:
    """The signal's word as every command says it (SIGTERM: terminated; else interrupted) and
    how many finished rows ``out`` keeps. Until 2026-12-01 a SIGTERM said "interrupted;
    finished rows are kept" over a folder with no row (outside check 9y item 4)."""
    word = stop_word(signum)
    try:
        rows = len(read_profile(out))
    except (OSError, ValueError):  # no profile.csv, or no complete row in it
        rows = 0
    kept = f"{rows} finished row{'' if rows == 1 else 's'} kept" if rows else "no point finished"
    return f"{word}; {kept}"


# the first line's words for a sweep whose steps are not fp32 (SweepConfig.predicts)
NO_PREDICTION = "no memory predicted (predictions are of fp32 steps; these are {dtype})"


def budget_words(budget_mb: float | None) -> str:
    """The budget as the sweep's first line says it: "budget 512 MB/point" or "no budget"."""
    return "no budget" if budget_mb is None else f"budget {budget_mb:,.0f} MB/point"


def shown_lengths(config: SweepConfig, options: dict[str, Any] | None) -> tuple[str, str]:
    """The measured and predicted lengths as the ``options`` that made the sweep spell them
    (``5,9,13,64`` as typed, a preset's ``16:384:16``), spaces left out; without options (a
    job's sweep) the lengths themselves, compactly (:func:`lengths_text`)."""
    if options is None or options.get("preset") not in PRESETS:
        return lengths_text(config.lengths), lengths_text(config.predict_lengths)
    texts = length_texts(
        PRESETS[options["preset"]], options.get("lengths"), options.get("predict_lengths")
    )
    measured, predicted = ("".join(text.split()) for text in texts)
    return measured, predicted


def on_this_machine(config: SweepConfig) -> SweepConfig:
    """``config`` with what depends on the machine that runs the sweep resolved here: the
    device (``resolve_device``) and, without ``--max-memory-mb``, a CPU worker's budget. A job
    calls it on its own node, not the submitting process on its."""
    device = resolve_device(config.device)
    budget = config.max_memory_mb
    if budget is None and device == "cpu":
        budget = round(DEFAULT_CPU_SHARE * available_bytes() / MB)
    return replace(config, device=device, max_memory_mb=budget)


def sweep_environment(config: SweepConfig) -> dict[str, str]:
    """The machine and library versions recorded with every row and in the manifest, with
    ``config``'s device resolved on this machine (:func:`on_this_machine`)."""
    import torch

    from harness.measurement.environment import environment

    env = {**environment(torch.device(config.device)), "allocator": config.allocator}
    if config.threads is not None:
        env["threads"] = str(config.threads)
    return env


def check_compatible(rows: list[dict[str, str]], config: SweepConfig, path: Path) -> None:
    """Refuse to append rows of another comparison (device, dtype, shape, allocator, compile,
    an explicit ``--threads`` other than the recorded one) or of an older column layout to a
    CSV."""
    if rows and set(COLUMNS) - set(rows[0]):
        missing = ", ".join(sorted(set(COLUMNS) - set(rows[0])))
        raise ValueError(
            f"{path}: written by an older sanbench (no {missing} columns); resume it with "
            "that version or profile into another --out"
        )
    wanted = config.compared_settings()
    for name, value in wanted.items():
        recorded = sorted({row[name] for row in rows} - {value})
        if recorded:
            raise ValueError(
                f"{path}: recorded rows have {name}={', '.join(recorded)} but this run would "
                f"write {name}={value}; one {path.name} holds one comparison. Resume with the "
                f"same settings (e.g. --allocator {rows[0]['allocator']}) or use another --out."
            )
    threads = sorted({row["threads"] for row in rows if row["threads"]} - {str(config.threads)})
    if config.threads is not None and threads:
        raise ValueError(
            f"{path}: recorded points were timed with {', '.join(threads)} threads but this run "
            f"asks for --threads {config.threads}; resume with the same --threads (or none) "
            "or use another --out"
        )


def _format(value: Any) -> Any:
    return float(f"{value:.6g}") if isinstance(value, float) else ("" if value is None else value)


def make_row(
    point: Point,
    config: SweepConfig,
    env: Mapping[str, str],
    reply: Mapping[str, Any],
    prediction: Prediction | None,
) -> dict[str, Any]:
    """One CSV row: the point, what the worker measured (``reply``) and the prediction."""
    metrics = {name: reply.get(name) for name in METRIC_COLUMNS}
    if prediction is not None:
        metrics["peak_mem_mb_predicted"] = prediction.peak_bytes / MB
        metrics["predicted_leaves_out"] = "; ".join(prediction.unmodelled)
        metrics["flops"] = prediction.flops
        metrics["params"] = prediction.params
    measured = metrics["eager_peak_mem_mb"] or metrics["peak_mem_mb"]  # eager: what is predicted
    if metrics["peak_mem_mb_predicted"] is not None and measured:
        metrics["predicted_error_pct"] = 100 * (metrics["peak_mem_mb_predicted"] / measured - 1)
    median = metrics["time_ms_median"]
    if metrics["flops"] and median:
        metrics["tflops"] = metrics["flops"] / (median / 1e3) / 1e12
    row = {
        **asdict(point),
        **config.compared_settings(),
        "status": reply["status"],
        **metrics,
        "max_memory_mb": config.max_memory_mb,
        "message": reply.get("message", ""),
        **{name: env[name] for name in ENVIRONMENT_COLUMNS},
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    return {name: _format(row[name]) for name in COLUMNS}


def describe(row: Mapping[str, Any], width: int = 14) -> str:
    """One row's console line, its label right-aligned in ``width`` characters."""
    label = variant_label(row["encoder"], row["options"])
    head = f"{label:>{width}} L={row['seq_len']:<4} {row['mode']:<5} {row['status']:<11}"
    predicted = row["peak_mem_mb_predicted"]
    predicted = f"{predicted:>10.1f} MB predicted" if predicted != "" else ""
    if row["predicted_leaves_out"]:
        predicted += f" (a lower bound: {row['predicted_leaves_out']})"
    if row["status"] == PREDICTED:
        return f"{head} {'':>13} {'':>13} {predicted}"
    if row["status"] != OK:
        message = row["message"]
        return f"{head} {short(message) if value_dependent(message) else message}"
    time = f"{row['time_ms_median']:>10.2f} ms"
    line = f"{head} {time} {row['peak_mem_mb']:>10.1f} MB {predicted}"
    if row["eager_time_ms_median"] != "":
        speedup = row["eager_time_ms_median"] / row["time_ms_median"]
        memory = row["peak_mem_mb"] / row["eager_peak_mem_mb"]
        line += (
            f"  compiled: {speedup:.2f}x eager's speed, {memory:.2f}x its memory "
            f"({row['eager_peak_mem_mb']:.1f} MB eager, which is what is predicted)"
        )
    if row["attention_ns_per_pair"] != "":
        passes = TILE_PASSES[row["mode"]]
        line += (
            f"  tiles {row['attention_ns_per_pair']:.2f} ns per (q, k, f), floor "
            f"{passes} x {row['attention_floor_ns_per_pair']:.2f}"
        )
    if row["contended"] is True:
        line += f"  CONTENDED (got {row['cpu_granted']:.0%} of the CPU it asked for)"
    return line


def contention_summary(rows: list[Mapping[str, str]], strict: bool = False) -> str | None:
    """The closing note on contended points (None when every timed point got its CPU); a
    ``strict`` sweep's says it refused them, not to add ``--strict``."""
    timed = [row for row in rows if row["status"] in MEASURED_STATUSES]
    contended = [row for row in timed if row["contended"] == "True"]
    unknown = [row for row in timed if row["contended"] == ""]
    if contended:
        one_thread = {row["threads"] for row in contended} <= {"1"}  # the fewest there are
        fewer = "" if one_thread else "use fewer --threads than free cores, "
        were = "was" if len(contended) == 1 else "were"
        strictly = (
            f"--strict re-measured each up to {STRICT_RETRIES} more times and refused those "
            f"that stayed contended: status {CONTENDED} in {PROFILE_CSV}"
            if strict
            else "add --strict to re-measure contended points and fail those that stay contended"
        )
        return (
            f"{len(contended)} of {len(timed)} timed points {were} contended: their threads "
            f"got less than {CONTENDED_BELOW:.0%} of the CPU they asked for, so their times "
            f"are inflated. Stop what else runs (see the load average in {PROFILE_CSV}), "
            f"{fewer}and profile again into a new --out ({strictly})."
        )
    if unknown:
        return f"{len(unknown)} timed points: contention unknown (no Linux schedstat)."
    return None


class Sweep:
    """Runs ``config`` into ``out/profile.csv`` (resuming whatever is already there)."""

    def __init__(self, config: SweepConfig, out: Path, env: Mapping[str, str], console: Console):
        self.config = config
        self.out = out
        self.env = dict(env)
        self.console = console
        self.results = results_file(out)
        rows = self.results.rows()
        check_compatible(rows, config, self.results.path)
        self.done = {self.results.key(row) for row in rows}
        # (encoder, options, mode) -> shortest length that ran out of memory
        self.oom_at: dict[tuple[str, str, str], int] = {}
        for row in rows:
            if row["status"] in (OOM, SKIPPED_OOM):
                key = (row["encoder"], row["options"], row["mode"])
                self._note_oom(key, int(row["seq_len"]))
        self.worker: WorkerProcess | None = None

    def _note_oom(self, key: tuple[str, str, str], seq_len: int) -> None:
        self.oom_at[key] = min(seq_len, self.oom_at.get(key, seq_len))

    def todo(self) -> list[Point]:
        return [p for p in self.config.points() if self.results.key(asdict(p)) not in self.done]

    def _start_worker(self, first: Point) -> WorkerProcess:
        config = {
            "point": asdict(first),
            "device": self.config.device,
            "dtype": self.config.dtype,
            "max_memory_mb": self.config.max_memory_mb,
            "imports": list(self.config.imports),
            "compile": self.config.compile,
            "threads": self.config.threads,
        }
        return WorkerProcess(config, self.config.preload, self.out / LOG_NAME)

    def _worker(self, point: Point) -> WorkerProcess:
        if self.worker is None:
            self.worker = self._start_worker(point)
        try:
            ready = self.worker.wait_ready()
        except WorkerDiedError as died:
            raise RuntimeError(f"worker failed to start: {died}") from None
        self.env.update(ready["environment"])
        return self.worker

    def _retire_worker(self, kill: bool = False) -> None:
        if self.worker is not None:
            self.worker.kill() if kill else self.worker.stop()
            self.worker = None

    def measure_or_skip(self, point: Point, prediction: Prediction | None = None) -> dict[str, Any]:
        """The worker's measurement of ``point``; not attempted (``skipped_oom``) after an
        out-of-memory shorter length, or on CPU when its ``prediction`` alone is over the
        budget (its tensors cannot all be allocated within it; on CUDA, whose kernels the
        prediction does not model, the point is tried and the budget decides)."""
        key = (point.encoder, point.options, point.mode)
        oom_len = self.oom_at.get(key)
        if self.config.skip_after_oom and oom_len is not None and point.seq_len > oom_len:
            return {"status": SKIPPED_OOM, "message": f"out of memory at L={oom_len}"}
        budget = self.config.max_memory_mb
        over = prediction is not None and budget is not None and prediction.peak_bytes / MB > budget
        if over and self.config.device == "cpu":  # the prediction models the CPU's kernels
            return {
                "status": SKIPPED_OOM,
                "message": f"not attempted: its tensors alone are predicted at "
                f"{prediction.peak_bytes / MB:,.0f} MB, over the {budget:,.0f} MB budget per "
                "point (--max-memory-mb)",
            }
        reply = self._request(point)
        measurements = 1
        while self.config.strict and reply.get("contended") is True:
            if measurements > STRICT_RETRIES:
                reply = {
                    **reply,
                    "status": CONTENDED,
                    "message": f"contended in {measurements} measurements (the last got "
                    f"{reply['cpu_granted']:.0%} of the CPU it asked for); refused by --strict",
                }
                break
            time.sleep(STRICT_PAUSE_S)
            reply = self._request(point)
            measurements += 1
        if reply["status"] == OOM:
            self._note_oom(key, point.seq_len)
        if reply.get("restart"):  # the worker's next point could fail for this one's reason
            self._retire_worker()
        return reply

    def _request(self, point: Point) -> dict[str, Any]:
        worker = self._worker(point)
        try:
            return worker.request(point_request(point, self.config.dtype, self.config.repeats))
        except WorkerDiedError as died:
            self.worker = None
            return {"status": died.status, "message": str(died)}

    def _write(self, point: Point, reply: Mapping[str, Any], prediction: Prediction | None) -> None:
        row = make_row(point, self.config, self.env, reply, prediction)
        width = max(len(spec.label) for spec in self.config.encoders)
        with interrupt_deferred():  # a row in profile.csv is a row on the console
            self.results.append(row)
            self.console.print(describe(row, width), highlight=False)

    def run(self, progress: bool = True) -> int:
        """Predict every missing point, then measure the measured ones; returns rows written."""
        todo = self.todo()
        measured = set(self.config.measured_points())
        to_measure = [p for p in todo if p in measured]
        columns = (
            TextColumn("{task.description:<34}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        bar = Progress(*columns, console=self.console, disable=not progress)
        predicted = len(todo) if self.config.predicts() else 0
        predictions: dict[Point, Prediction | None] = dict.fromkeys(todo)
        try:
            with bar:
                task = bar.add_task("profile", total=predicted + len(to_measure))
                if to_measure:  # imports torch while the predictions run
                    self.worker = self._start_worker(to_measure[0])
                if self.config.predicts():
                    bar.update(task, description="predict (meta tensors)")
                    found = predict_points(
                        todo, self.config.imports, PREDICTION_PROCESSES, self.config.threads
                    )
                    said: set[str] = set()  # the encoders whose memory depends on values
                    with closing(found):  # its processes end here, even on Ctrl-C
                        for point, prediction in found:
                            failed = isinstance(prediction, str)
                            predictions[point] = None if failed else prediction
                            label = variant_label(point.encoder, point.options)
                            if failed and value_dependent(prediction):
                                if label not in said:  # once per encoder: it holds at every point
                                    said.add(label)
                                    line = f"[yellow]{label}: {escape(prediction)}"
                                    self.console.print(line, highlight=False)
                            elif failed and point in measured:
                                line = f"[yellow]{point}: {prediction}"
                                self.console.print(line, highlight=False)
                            if point not in measured:
                                reply = {"status": PREDICTED}
                                if failed:
                                    reply = {"status": ERROR, "message": prediction}
                                self._write(point, reply, predictions[point])
                            bar.advance(task)
                for point in to_measure:
                    bar.update(
                        task, description=f"measure {point.encoder} L={point.seq_len} {point.mode}"
                    )
                    prediction = predictions[point]
                    self._write(point, self.measure_or_skip(point, prediction), prediction)
                    bar.advance(task)
        finally:
            self._retire_worker(kill=True)
        note = contention_summary(self.results.rows(), self.config.strict)
        if note:
            self.console.print(f"[yellow]{note}", highlight=False)
        return len(todo)
