"""``sanbench predict``: labels and class probabilities of new sentences from a checkpoint.

    sanbench predict --ckpt runs/trec/checkpoints/last.ckpt --input questions.txt --out pred.csv

One row per input line: ``line``, ``label``, ``p_<class>`` per class (``score`` for SICK).
"""

from __future__ import annotations

import argparse

from harness.commands.inference_args import add_arguments as add_shared
from harness.commands.inference_args import run_checked


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_shared(parser, out_help="CSV file to write")


def run(args: argparse.Namespace) -> int:
    def apply(*arguments):
        from harness.training.inference import predict_file

        return predict_file(*arguments)

    return run_checked(args, ".csv", apply)
