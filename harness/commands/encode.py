"""``sanbench encode``: a trained encoder's pooled sentence vectors for new sentences.

    sanbench encode --ckpt runs/trec/checkpoints/last.ckpt --input sentences.txt --out emb.npy

Writes float32 [lines, output_dim] in input order (``numpy.load``), e.g. for SentEval.
"""

from __future__ import annotations

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.commands.inference_args import InferenceOptions, run_checked


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(InferenceOptions)


def run(config: Namespace) -> int:
    def apply(*arguments):
        from harness.inference.predict_and_encode import encode_file

        return encode_file(*arguments)

    return run_checked(build(InferenceOptions, config), "encode", ".npy", apply)
