"""The ``sanbench fit`` command: its run function, which parses its own words."""

from __future__ import annotations

import json
import sys
from pathlib import Path

OWN_PARSER = True  # harness.cli hands every word after ``fit`` to :func:`fit`


def fit(words: list[str]) -> int:
    """``sanbench fit``: train, validate and test one model, configured through LightningCLI.

        sanbench fit --task trec --encoder bi_blosan --data-dir D --embeddings FILE --out DIR \\
            --trainer.max_steps 50 --model.optimizer adam --model.dropout 0.3
        sanbench fit --task trec --encoder bi_blosan --data-dir D --print_config > trec.yaml
        sanbench fit --config trec.yaml --out runs/trec-dropout --model.dropout 0.2
        sanbench fit --task examples/own-data/reviews.yaml --encoder multi_cnn --out runs/reviews

    ``--task`` takes a benchmark's name or a task file of your own (a YAML file naming CSV, TSV or
    JSON-lines files and their columns); ``--data module.Class`` a LightningDataModule class of
    yours (docs/data.md, "Your own data").

    The words after ``fit`` go to :class:`harness.training.settings.fit_cli.FitCLI` (``--help``
    lists every option with its type and default, and its short forms such as ``--task``).
    """
    from lightning.pytorch.utilities import rank_zero_only

    from harness.training.settings.fit_cli import FitCLI
    from harness.training.settings.task_configs import seed_message_hidden

    with seed_message_hidden():
        cli = FitCLI(words)
    from harness.training.fit import run_fit
    from reports.contracts.fit_folder import FitRunFolder

    # nothing trained: the folder's metrics.json is the one it held before (a longer budget
    # trains on from a finished folder and writes it anew)
    out = cli.config["out"]  # None: refused by run_fit's checks, beside the other problems
    written = None if out is None else FitRunFolder(Path(out)).metrics
    kept = written is not None and written.is_file() and not cli.overwrite
    before = written.stat().st_mtime_ns if kept and written is not None else None
    metrics = run_fit(cli, overwrite=cli.overwrite)
    finished = written is not None and written.is_file() and written.stat().st_mtime_ns == before
    summary = {k: v for k, v in metrics.items() if k not in ("config", "versions")}
    # under DDP every process returns here; one prints (a finished run built no trainer)
    if rank_zero_only.rank == 0:
        if finished:
            print(
                f"{cli.out_dir}: already finished with this configuration, nothing trained; "
                "its metrics below (--overwrite trains it again)",
                file=sys.stderr,
            )
        print(json.dumps(summary, indent=2))
    return 0
