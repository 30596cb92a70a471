"""Short timed probes that size the preset's budget: a few hundred training steps of one
(task, encoder), scaled to the preset's epochs.

    python -m harness.reproduce.probe --data-dir D --embeddings E --out runs/probe --steps 100

Each probe trains ``steps`` steps as one epoch (then validates and tests once) with the
preset's overrides and records the step time and the rest of the run's time (setup, one
validation, test, inference timing). Run it with ``OMP_NUM_THREADS=1``, two at a time, like
the preset itself.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

from harness.reproduce.preset import PAPER_PRESET, Preset
from harness.results import ResultsFile
from harness.suite.grid import CV_TASKS

COLUMNS = (
    "task",
    "encoder",
    "steps",
    "step_s",
    "other_s",
    "steps_per_epoch",
    "max_steps",
    "estimated_run_s",
)


def estimate_run_seconds(
    step_s: float, other_s: float, steps_per_epoch: int, max_epochs: int, max_steps: int
) -> float:
    """Worst-case run time: every epoch up to the cap (``max_steps`` < 0: none), one validation
    per epoch (counted as ``other_s``, which also holds one test and the setup)."""
    steps = steps_per_epoch * max_epochs
    if max_steps > 0:
        steps = min(steps, max_steps)
    epochs = math.ceil(steps / steps_per_epoch)
    return steps * step_s + epochs * other_s


def probe(
    task: str, encoder: str, data_dir: Path, embeddings: Path | None, out: Path, steps: int,
    preset: Preset = PAPER_PRESET,
) -> dict[str, Any]:  # fmt: skip
    """Time ``steps`` training steps of one run of ``preset`` and estimate the full run."""
    from datamodules import build_datamodule
    from harness.training.run import resolve_config, run_fit

    config = resolve_config(task, encoder, preset.overrides)
    fold = 0 if task in CV_TASKS else None
    datamodule = build_datamodule(
        task, data_dir=data_dir, embeddings=embeddings, batch_size=config["batch_size"], seed=0,
        **({} if fold is None else {"fold": fold}),
    )  # fmt: skip
    datamodule.setup("fit")
    steps_per_epoch = len(datamodule.train_dataloader())
    steps = min(steps, steps_per_epoch)  # one epoch: the step time is the epoch's time
    budget = {**preset.overrides, "max_steps": steps, "limit_train_batches": steps}
    start = time.perf_counter()
    metrics = run_fit(task, encoder, data_dir, embeddings, out / task / encoder, 0, fold, budget)
    wall = time.perf_counter() - start
    train_s = float(metrics["train_time_s"])
    step_s = train_s / int(metrics["steps"])
    other_s = wall - train_s
    estimate = estimate_run_seconds(
        step_s, other_s, steps_per_epoch, config["max_epochs"], config["max_steps"]
    )
    return {
        "task": task,
        "encoder": encoder,
        "steps": metrics["steps"],
        "step_s": f"{step_s:.4f}",
        "other_s": f"{other_s:.1f}",
        "steps_per_epoch": steps_per_epoch,
        "max_steps": config["max_steps"],
        "estimated_run_s": f"{estimate:.0f}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--embeddings", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--tasks", default=",".join(PAPER_PRESET.tasks))
    parser.add_argument("--encoders", default=",".join(PAPER_PRESET.encoders))
    args = parser.parse_args()
    results = ResultsFile(args.out / "probes.csv", ("task", "encoder"))
    done = {results.key(row) for row in results.rows()}
    for task in args.tasks.split(","):
        for encoder in args.encoders.split(","):
            if (task, encoder) in done:
                continue
            row = probe(task, encoder, args.data_dir, args.embeddings, args.out, args.steps)
            results.append(row)
            print(row, flush=True)


if __name__ == "__main__":
    main()
