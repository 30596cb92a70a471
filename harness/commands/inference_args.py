"""Arguments shared by ``sanbench predict`` and ``sanbench encode``, checked before torch."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser, out_help: str) -> None:
    parser.add_argument("--ckpt", type=Path, required=True, help="a checkpoint of `sanbench fit`")
    parser.add_argument(
        "--input",
        type=Path,
        required=True,
        help="UTF-8, one whitespace-tokenized sentence per line (pair tasks: two, tab-separated)",
    )
    parser.add_argument("--out", type=Path, required=True, help=out_help)
    parser.add_argument("--batch-size", type=_positive, default=128, help="sentences per batch")
    parser.add_argument("--debug", action="store_true", help="tracebacks on errors")


def run_checked(
    command: str,
    args: argparse.Namespace,
    suffix: str,
    apply: Callable[[Path, Path, Path, int, bool], Path],
) -> int:
    """Check the paths, then ``apply(ckpt, input, out, batch_size, progress)``; errors in one
    line with status 2 (``--debug`` shows the traceback)."""
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
        print(f"sanbench {command}: {'; '.join(problems)}", file=sys.stderr)
        return 2
    try:
        written = apply(args.ckpt, args.input, args.out, args.batch_size, sys.stderr.isatty())
    except ValueError as error:  # DataFormatError and a checkpoint without vocabulary
        if args.debug:
            raise
        print(f"sanbench {command}: {error}", file=sys.stderr)
        return 2
    print(written)
    return 0
