"""Arguments shared by ``sanbench predict`` and ``sanbench encode``, checked before torch;
errors go to ``harness.cli`` (one line per problem, exit status 2)."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from datamodules.cli import add_encoding_argument
from harness.arguments import positive_int
from harness.errors import InputError, RunInterruptedError


def add_arguments(parser: argparse.ArgumentParser, out_help: str) -> None:
    parser.add_argument("--ckpt", type=Path, required=True, help="a checkpoint of `sanbench fit`")
    parser.add_argument(
        "--input",
        type=Path,
        required=True,
        help="UTF-8, one whitespace-tokenized sentence per line (pair tasks: two, tab-separated)",
    )
    parser.add_argument("--out", type=Path, required=True, help=out_help)
    parser.add_argument("--batch-size", type=positive_int, default=128, help="sentences per batch")
    add_encoding_argument(parser)


def run_checked(
    args: argparse.Namespace,
    suffix: str,
    apply: Callable[..., Path],
) -> int:
    """Check the paths (every problem at once, :class:`InputError`), then ``apply(ckpt, input,
    out, batch_size, progress, encoding)`` and print the file written."""
    problems = [
        f"--{name} {path}: no such file"
        for name, path in (("ckpt", args.ckpt), ("input", args.input))
        if not path.is_file()
    ]
    if args.out.suffix != suffix:
        problems.append(f"--out {args.out}: expected a {suffix} file name")
    if not args.out.parent.is_dir():
        problems.append(f"--out {args.out}: folder {args.out.parent} does not exist")
    if problems:
        raise InputError("\n".join(problems))
    signal.signal(signal.SIGTERM, _terminated)  # the writer's on_exception removes its file
    progress = sys.stderr.isatty()
    written = apply(args.ckpt, args.input, args.out, args.batch_size, progress, args.encoding)
    print(written)
    return 0


def _terminated(signum: int, frame: object) -> None:
    raise RunInterruptedError("terminated; nothing was written", signum)
