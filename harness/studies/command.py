"""The ``sanbench tune`` command: its options' parser and its run function."""

from __future__ import annotations

import contextlib

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.outdir import out_folder
from harness.studies import StudyOptions, run_tune
from harness.studies.tune import problems_beside_options


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(StudyOptions)


def tune(config: Namespace) -> int:
    """sanbench tune: optuna studies over the harness (block length, dropout, memory).

        sanbench tune --study block-length --task trec --encoder bi_blosan --trials 12 \\
            --data-dir ../shared/datasets --max-steps 200 --storage sqlite:///runs/studies/optuna.db
        sanbench tune --study block-length-memory --lengths 32,64,128

    Start the same command in several processes (or machines, with a shared database URL) to
    share one study; the total number of finished trials stays --trials. Fit options
    (--trainer.*, --model.*, --data.*, as sanbench fit takes them) go to every trial and into
    the best configuration; --max-steps, --max-epochs and --limit-* are the trials' budget only.
    """
    # the study's default folder (runs/studies/NAME) is checked and held as a given --out is
    # (harness.cli does that one), before any trial
    options = build(StudyOptions, config, beside=problems_beside_options)
    given = options.out is not None
    with contextlib.nullcontext() if given else out_folder("tune", options.context().out):
        run_tune(options)
    return 0
