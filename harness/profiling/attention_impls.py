"""Naive vs chunked multi-dimensional attention: training-step memory and time side by side.

python -m harness.profiling.attention_impls [--encoders disan] [--lengths 64,128,256,384]

For every encoder and length, each variant (``naive`` and ``chunked`` at every
``--chunk-sizes`` tile) runs the profiler's training step on synthetic [batch, L, dim] inputs
(``measure.make_step``): first one step each for the exact tensor peak (``measure.memory_step``,
load-independent), then ``--repeats`` rounds of one timed step per variant, interleaved in this
process (device synchronised, summarised by ``torch.utils.benchmark.Measurement``) so that
every variant sees the same load; the 1-minute load average is recorded with the times. A
variant is skipped when its peak predicted on meta tensors (``harness.profiling.predict``,
exact tensor bytes, nothing allocated) exceeds the memory budget (80% of the RAM, or of the
free CUDA memory, available at start). Rows go
to ``--out`` (CSV, default ``runs/attention-impls-<timestamp>/``) as each length finishes;
rerunning with the same ``--out`` resumes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

KEY = ("encoder", "seq_len", "variant")
COLUMNS = (
    *KEY,
    *("status", "peak_mem_mb", "predicted_mem_mb", "time_s_median", "time_s_iqr"),
    *("time_vs_naive", "cpu_s_median", "cpu_vs_naive", "load_avg_1m", "threads"),
    *("batch_size", "dim", "device"),
)


def positive_ints(text: str) -> list[int]:
    """'64,128' -> [64, 128]; argparse turns the ValueError into a usage error."""
    values = [int(part) for part in text.split(",") if part.strip()]
    if not values or min(values) < 1:
        raise ValueError(text)
    return values


def positive_int(text: str) -> int:
    (value,) = positive_ints(text)
    return value


positive_ints.__name__ = "comma-separated positive integers"
positive_int.__name__ = "positive integer"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m harness.profiling.attention_impls",
        description="Training-step peak tensor memory and time, naive vs chunked attention.",
    )
    parser.add_argument("--encoders", default="disan", help="comma-separated (default: disan)")
    parser.add_argument("--lengths", type=positive_ints, default=[64, 128, 256, 384])
    parser.add_argument("--chunk-sizes", type=positive_ints, default=None, help="tiles to try")
    parser.add_argument("--batch-size", type=positive_int, default=64)
    parser.add_argument("--dim", type=positive_int, default=300)
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed rounds per length")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    parser.add_argument("--threads", type=positive_int, default=None, help="torch threads")
    parser.add_argument("--out", type=Path, default=None, help="CSV to write or resume")
    return parser.parse_args(argv)


def variants(chunk_sizes: Sequence[int]) -> dict[str, dict[str, Any]]:
    """Variant label -> build_encoder keywords."""
    chunked = {
        f"chunked/{size}": {"attention_impl": "chunked", "chunk_size": size} for size in chunk_sizes
    }
    return {"naive": {}, **chunked}


def interleaved_times(
    steps: dict[str, Callable[[], None]], repeats: int, device: Any
) -> dict[str, tuple[Any, float]]:
    """``repeats`` rounds, each timing one step of every variant in turn (same load for all).

    Returns label -> (wall-clock ``benchmark.Measurement``: median, IQR; median process CPU
    seconds, which move less with a shared machine's load than the wall clock). Each step is
    timed with ``perf_counter`` between device synchronisations rather than by
    ``benchmark.Timer.timeit``, which runs two untimed warm-up steps before every timed block
    and would triple the cost of these multi-second steps; the counted step was the warm-up.
    """
    import torch
    from torch.utils import benchmark

    def synchronise() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    wall: dict[str, list[float]] = {label: [] for label in steps}
    cpu: dict[str, list[float]] = {label: [] for label in steps}
    for _ in range(repeats):
        for label, step in steps.items():
            synchronise()
            start, cpu_start = time.perf_counter(), time.process_time()
            step()
            synchronise()
            wall[label].append(time.perf_counter() - start)
            cpu[label].append(time.process_time() - cpu_start)
    threads = torch_threads()
    return {
        label: (
            benchmark.Measurement(
                number_per_run=1,
                raw_times=wall[label],
                task_spec=benchmark.TaskSpec(stmt=label, setup="", num_threads=threads),
            ),
            statistics.median(cpu[label]),
        )
        for label in steps
    }


def torch_threads() -> int:
    import torch

    return torch.get_num_threads()


def measure_length(
    encoder: str,
    seq_len: int,
    labels: dict[str, dict[str, Any]],
    args: argparse.Namespace,
    budget: int,
) -> list[dict[str, Any]]:
    """Rows of one (encoder, length): memory of every variant, then interleaved times."""
    import torch

    from encoders import build_encoder
    from harness.profiling.measure import MB, Point, live_bytes, make_step, memory_step
    from harness.profiling.measure import synthetic_batch as batch_of
    from harness.profiling.predict import predict

    device = torch.device(args.device)
    x, mask = batch_of(Point(encoder, seq_len, "train", args.batch_size, args.dim), device)
    rows: dict[str, dict[str, Any]] = {}
    steps: dict[str, Callable[[], None]] = {}
    for label, kwargs in labels.items():
        point = Point(encoder, seq_len, "train", args.batch_size, args.dim)
        predicted = predict(
            lambda kw=kwargs: build_encoder(encoder, input_dim=args.dim, **kw), point
        )
        predicted = predicted.peak_bytes
        row = dict.fromkeys(COLUMNS, "")
        row.update(encoder=encoder, seq_len=seq_len, variant=label)
        row.update(batch_size=args.batch_size, dim=args.dim, device=args.device)
        row["predicted_mem_mb"] = round(predicted / MB, 1)
        rows[label] = row
        if predicted > budget:
            row["status"] = f"skipped: predicted {predicted / MB:.0f} MB > budget"
            continue
        torch.manual_seed(0)
        model = build_encoder(encoder, input_dim=args.dim, **kwargs).to(device)
        step = make_step(model, x, mask, "train", "fp32")
        gc.collect()
        baseline = live_bytes([*model.parameters(), *model.buffers(), x, mask])
        peak, _ = memory_step(step, device, baseline)
        row.update(status="ok", peak_mem_mb=round(peak / MB, 1))
        steps[label] = step
    load_before = os.getloadavg()[0]
    times = interleaved_times(steps, args.repeats, device)
    load_after = os.getloadavg()[0]
    for label, (timing, cpu_s) in times.items():
        rows[label].update(
            time_s_median=round(timing.median, 3),
            time_s_iqr=round(timing.iqr, 3),
            cpu_s_median=round(cpu_s, 3),
            load_avg_1m=f"{load_before:.1f}-{load_after:.1f}",
            threads=torch_threads(),
        )
        if "naive" in times:
            naive, naive_cpu = times["naive"]
            rows[label]["time_vs_naive"] = round(timing.median / naive.median, 3)
            rows[label]["cpu_vs_naive"] = round(cpu_s / naive_cpu, 3)
    return list(rows.values())


def print_table(rows: list[dict[str, str]]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    columns = ("encoder", "seq_len", "variant", "status", "peak_mem_mb", "predicted_mem_mb")
    columns += ("time_s_median", "time_vs_naive", "cpu_vs_naive", "load_avg_1m")
    table = Table(title=escape("training step [batch, L, dim]: naive vs chunked attention"))
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(escape(str(row.get(column, ""))) for column in columns))
    Console(width=200).print(table)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import psutil
    import torch

    from encoders import encoder_entry
    from encoders.layers.tanh_attention import DEFAULT_CHUNK_SIZE
    from harness.results import ResultsFile

    names = [name.strip() for name in args.encoders.split(",") if name.strip()]
    for name in names:
        try:
            encoder_entry(name)
        except KeyError as error:
            print(f"error: --encoders: {error.args[0]}", file=sys.stderr)
            return 2
    if args.threads:
        torch.set_num_threads(args.threads)
    labels = variants(args.chunk_sizes or [DEFAULT_CHUNK_SIZE])
    if args.device == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.device == "cuda":
        budget = int(0.8 * torch.cuda.mem_get_info()[0])
    else:
        budget = int(0.8 * psutil.virtual_memory().available)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or Path(f"runs/attention-impls-{stamp}/attention_impls.csv")
    results = ResultsFile(out, KEY)
    done = results.done_keys()
    for name in names:
        for seq_len in sorted(args.lengths):
            if all((name, str(seq_len), label) in done for label in labels):
                continue
            for row in measure_length(name, seq_len, labels, args, budget):
                results.append(row)
                print(", ".join(f"{key}={value}" for key, value in row.items()), flush=True)
    print_table(results.rows())
    print(f"rows: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
