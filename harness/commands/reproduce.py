"""``sanbench reproduce``: Bi-BloSAN Table 6 / MTSA Table 5 on this machine, beside the papers.

    sanbench reproduce --data-dir ../shared/datasets \\
        --embeddings ../shared/datasets/glove/glove.6B.50d.subset.txt --out runs/reproduce

Runs the preset (``harness/reproduce/preset.py``) on ``--workers`` processes of ``--threads``
threads, resumes after a kill without repeating finished runs, then writes the suite's tables
and the reproduction tables (``OUT/reproduction/``). Run it when nothing is being timed.
"""

from __future__ import annotations

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.reproduce.options import ReproduceOptions


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(ReproduceOptions)


def run(config: Namespace) -> int:
    from harness.reproduce.run import run_reproduction

    print(f"tables: {run_reproduction(build(ReproduceOptions, config))}")
    return 0
