"""Short probes that size the preset's budget: a few training steps of each (task, encoder)
with the preset's settings, scaled to a full run.

    OMP_NUM_THREADS=1 python tools/reproduce_probe.py --data-dir D --embeddings E \\
        --out runs/probe --steps 100

Each probe trains ``steps`` steps (at most one epoch), validates and tests once. On a shared
machine wall time measures the other jobs too, so the probe scales its wall times by the
process's CPU share (CPU seconds / wall seconds over the probe): with one thread per run, the
CPU seconds are what the run costs on a quiet core. Rows go to ``OUT/probes.csv`` (resumable);
the last line printed is the preset's estimated wall time on ``--workers`` parallel runs.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.reproduce.preset import CPU_PRESET, WORKERS, Preset
from harness.suite.grid import CV_TASKS, Shard
from reports.contracts.results_file import ResultsFile


def estimate_run_seconds(
    step_s: float, other_s: float, steps_per_epoch: int, max_epochs: int, max_steps: int
) -> float:
    """Worst-case run time: every epoch up to the caps (``max_steps`` <= 0: none), and
    ``other_s`` (one validation, plus setup and test: an overestimate) once per epoch."""
    steps = steps_per_epoch * max_epochs
    if max_steps > 0:
        steps = min(steps, max_steps)
    return steps * step_s + math.ceil(steps / steps_per_epoch) * other_s


def probe(
    task: str, encoder: str, data_dir: Path, embeddings: Path | None, out: Path, steps: int,
    preset: Preset = CPU_PRESET,
) -> dict[str, Any]:  # fmt: skip
    """Time ``steps`` training steps of one run of ``preset`` and estimate the full run."""
    from datamodules import build_datamodule
    from harness.training.fit import run_fit
    from harness.training.settings.fit_run import FitRun

    fold = 0 if task in CV_TASKS else None
    run = FitRun(task, encoder, data_dir, out / task / encoder, embeddings, 0, fold)
    config = replace(run, overrides=preset.overrides).resolved()
    datamodule = build_datamodule(
        task, data_dir=data_dir, embeddings=embeddings, batch_size=config["data"]["batch_size"],
        seed=0, **({} if fold is None else {"fold": fold}),
    )  # fmt: skip
    datamodule.setup("fit")
    steps_per_epoch = len(datamodule.train_dataloader())
    steps = min(steps, steps_per_epoch)
    budget = {**preset.overrides, "trainer.max_steps": steps, "trainer.limit_train_batches": steps}
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    metrics = run_fit(replace(run, overrides=budget))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    share = min(1.0, cpu / wall)
    train_s = float(metrics["train_time_s"]) * share
    step_s = train_s / int(metrics["steps"])
    other_s = wall * share - train_s
    estimate = estimate_run_seconds(
        step_s,
        other_s,
        steps_per_epoch,
        config["trainer"]["max_epochs"],
        config["trainer"]["max_steps"],
    )
    return {
        "task": task,
        "encoder": encoder,
        "steps": metrics["steps"],
        "load_1min": f"{load:.2f}",
        "wall_s": f"{wall:.1f}",
        "cpu_share": f"{share:.2f}",
        "step_s": f"{step_s:.4f}",
        "other_s": f"{other_s:.1f}",
        "steps_per_epoch": steps_per_epoch,
        "max_epochs": config["trainer"]["max_epochs"],
        "max_steps": config["trainer"]["max_steps"],
        "estimated_run_s": f"{estimate:.0f}",
    }


def preset_hours(rows: list[dict[str, str]], preset: Preset, workers: int) -> float:
    """The preset's wall time in hours on ``workers`` parallel runs: the slowest worker's
    share of the grid (shard ``k/workers``, as ``sanbench reproduce`` splits it), each run
    taking its cell's estimate."""
    estimate = {(row["task"], row["encoder"]): float(row["estimated_run_s"]) for row in rows}
    grid = preset.grid()
    shares = [
        sum(estimate[(run.task, run.encoder)] for run in Shard(k, workers).select(grid))
        for k in range(1, workers + 1)
    ]
    return max(shares) / 3600


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--embeddings", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--workers", type=int, default=WORKERS)
    args = parser.parse_args()
    preset = CPU_PRESET
    results = ResultsFile(args.out / "probes.csv", ("task", "encoder"))
    done = results.done_keys()
    for task in preset.tasks:
        for encoder in preset.encoders:
            if (task, encoder) not in done:
                row = probe(task, encoder, args.data_dir, args.embeddings, args.out, args.steps)
                results.append(row)
                print(row, flush=True)
    hours = preset_hours(results.rows(), preset, args.workers)
    print(f"estimated preset wall time on {args.workers} workers: {hours:.2f} h (worst case)")


if __name__ == "__main__":
    main()
