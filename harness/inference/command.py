"""The ``sanbench predict`` and ``sanbench encode`` commands: their options' parser and their
run functions, which check the options, apply a checkpoint to a file and record what they wrote."""

from __future__ import annotations

import codecs
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build, said_as_written
from harness.errors import InputError, RunInterruptedError, UsageError
from harness.inference.options import InferenceOptions, given_problems, value_problems
from harness.outdir import one_file_writer, out_file_problems, record_file

# the file each command writes, by the last word of its parser's name (``sanbench encode``)
SUFFIXES = {"predict": ".csv", "encode": ".npy"}


def add_arguments(parser: CommandParser) -> None:
    """The options; a required one left out is said beside the others' problems."""
    parser.add_options(InferenceOptions)
    suffix = SUFFIXES.get(parser.prog.rpartition(" ")[2])
    if suffix is not None:  # a parser of predict or encode (not one a test builds)
        parser.beside_missing = lambda namespace: given_problems(namespace, suffix)
        # --print_config refuses the values the run refuses, not the files (a file to fill in)
        parser.printed_values_problems = lambda namespace: value_problems(namespace, suffix)


def predict(config: Namespace) -> int:
    """sanbench predict: labels and class probabilities of new sentences from a checkpoint.

        sanbench predict --ckpt runs/trec/checkpoints/last.ckpt --input questions.txt --out pred.csv

    One row per input line: line, sentence, label, p_<class> per class (the line's
    number from 1, the line as given, the most probable class and each class's probability); for
    SICK line, sentence, score.
    """

    def apply(*arguments):
        from harness.inference.trained_model import predict_file

        return predict_file(*arguments)

    return run_checked(checked(config, ".csv"), "predict", ".csv", apply)


def encode(config: Namespace) -> int:
    """sanbench encode: a trained encoder's pooled sentence vectors for new sentences.

        sanbench encode --ckpt runs/trec/checkpoints/last.ckpt --input sentences.txt --out emb.npy

    Writes float32 [lines, output_dim] in input order (numpy.load), e.g. for SentEval.
    """

    def apply(*arguments):
        from harness.inference.trained_model import encode_file

        return encode_file(*arguments)

    return run_checked(checked(config, ".npy"), "encode", ".npy", apply)


def checked(config: Namespace, suffix: str) -> InferenceOptions:
    """The options of ``config``; refused with every problem at once, the files' beside an
    option's refused by the parser (an unknown one)."""
    return build(InferenceOptions, config, beside=lambda values: given_problems(values, suffix))


def run_checked(
    options: InferenceOptions, command: str, suffix: str, apply: Callable[..., Path]
) -> int:
    """Check the options (every problem at once: a :class:`UsageError` when a value is refused,
    an :class:`InputError` for the files' problems alone, no pointer to the help), then,
    holding ``--out``'s lock, ``apply(ckpt, input, out, batch_size, progress, encoding)``,
    record the file written as ``command``'s and print it."""
    files, values = options.problems(suffix)
    if files or values:
        lines = "\n".join(said_as_written(files + values))  # a config file's as written
        raise UsageError(lines) if values else InputError(lines)
    encoding = None if options.encoding is None else codecs.lookup(options.encoding).name
    signal.signal(signal.SIGTERM, _terminated)  # the writer's on_exception removes its file
    progress = sys.stderr.isatty()
    o = options
    with one_file_writer(o.out):  # a second command writing it meanwhile is refused
        # checked again under the lock: a command that held it may have written --out since
        if problems := out_file_problems(o.out, suffix, o.overwrite):
            raise InputError("\n".join(problems))
        written = apply(o.ckpt, o.input, o.out, o.batch_size, progress, encoding)
        record_file(written, command)
    print(written)
    return 0


def _terminated(signum: int, frame: object) -> None:
    raise RunInterruptedError("terminated; nothing was written", signum)
