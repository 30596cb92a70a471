"""The ``sanbench suite`` command: its options' parser and its run function."""

from __future__ import annotations

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.suite import SuiteOptions, run_suite
from harness.suite.suite import problems_beside_options


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(SuiteOptions)


def suite(config: Namespace) -> int:
    """sanbench suite: run a grid of tasks x encoders x seeds (or CV folds), then aggregate.

        sanbench suite --tasks cr,trec,sst2 --encoders bi_blosan,mtsa --seeds 5 \\
            --data-dir ../shared/datasets --embeddings glove.txt --out runs/suite --shard 1/4
        sanbench suite --tasks trec --encoders mtsa --data-dir D --out mtsa --print_config > s.yaml
        sanbench suite --config s.yaml --model.dropout 0.3

    docs/suite.md: the protocol, the output files, resuming and sharding.
    """
    run_suite(build(SuiteOptions, config, beside=problems_beside_options))
    return 0
