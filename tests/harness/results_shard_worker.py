"""A suite shard process for the tests: ``python results_shard_worker.py OUT INDEX``.

Runs shard INDEX of 2 of a 2 x 2 x SEEDS grid with a fit that returns at once, so that two
such processes append to one folder as fast as they can.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from harness.suite.grid import Shard, expand_grid
from harness.suite.runner import run_shard
from harness.training.config import FitRun

TASKS = ("trec", "sst2")
ENCODERS = ("mtsa", "disan")
SEEDS = 15


def fake_fit(run: FitRun) -> dict[str, Any]:
    """A finished run's metrics."""
    return {"params": 10, "test_acc": 0.5 + 0.001 * run.seed, "versions": {"torch": "x"}}


def main(out: str, index: str) -> int:
    run_shard(
        expand_grid(TASKS, ENCODERS, SEEDS),
        shard=Shard(int(index), 2),
        out_dir=Path(out),
        fit=fake_fit,
        data_dir=Path("data"),
        embeddings=None,
        overrides={},
        log=lambda _: None,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
