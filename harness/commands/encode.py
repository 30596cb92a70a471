"""``sanbench encode``: a trained encoder's pooled sentence vectors for new sentences.

    sanbench encode --ckpt runs/trec/checkpoints/last.ckpt --input sentences.txt --out emb.npy

Writes float32 [lines, output_dim] in input order (``numpy.load``), e.g. for SentEval.
"""

from __future__ import annotations

import argparse

from harness.commands.inference_args import add_arguments as add_shared
from harness.commands.inference_args import run_checked


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_shared(parser, out_help=".npy file to write")


def run(args: argparse.Namespace) -> int:
    def apply(*arguments):
        from harness.training.inference import encode_file

        return encode_file(*arguments)

    return run_checked(args, ".npy", apply)
