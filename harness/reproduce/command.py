"""The ``sanbench reproduce`` command: its options' parser and its run function."""

from __future__ import annotations

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.outdir import out_folder
from harness.reproduce import ReproduceOptions, run_reproduce
from harness.reproduce.reproduce import problems_beside_options

OUT_AFTER_CHECKS = True  # --out is marked and locked once the options are right (harness.cli)


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(ReproduceOptions)


def reproduce(config: Namespace) -> int:
    """sanbench reproduce: Bi-BloSAN Table 6 / MTSA Table 5 on this machine, beside the papers.

        sanbench reproduce --data-dir ../shared/datasets \\
            --embeddings ../shared/datasets/glove/glove.6B.50d.subset.txt --out runs/reproduce
        sanbench reproduce --preset paper --launcher slurm --jobs 54 --slurm-time 600 ...
        sanbench reproduce --tasks trec --encoders multi_cnn,bi_blosan ...   # a part of the grid

    Runs the preset (harness/reproduce/preset.py), or the part --tasks x --encoders of
    it, as --jobs jobs (--launcher process, the default: forked processes of --threads
    threads on this console; local or slurm: submitit), resumes after a kill without
    repeating finished runs, then writes the suite's tables and the reproduction tables
    (OUT/reproduction/). Run it when nothing is being timed.
    """
    options = build(ReproduceOptions, config, beside=problems_beside_options)
    with out_folder("reproduce", options.out):
        print(f"tables: {run_reproduce(options).absolute()}")
    return 0
