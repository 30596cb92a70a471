"""``sanbench predict``: labels and class probabilities of new sentences from a checkpoint.

    sanbench predict --ckpt runs/trec/checkpoints/last.ckpt --input questions.txt --out pred.csv

One row per input line: ``line``, ``sentence``, ``label``, ``p_<class>`` per class (the line's
number from 1, the line as given, the most probable class and each class's probability); for
SICK ``line``, ``sentence``, ``score``.
"""

from __future__ import annotations

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.commands.inference_args import InferenceOptions, run_checked


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(InferenceOptions)


def run(config: Namespace) -> int:
    def apply(*arguments):
        from harness.inference.predict_and_encode import predict_file

        return predict_file(*arguments)

    return run_checked(build(InferenceOptions, config), "predict", ".csv", apply)
