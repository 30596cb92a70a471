"""Options shared by ``sanbench predict`` and ``sanbench encode``, checked before torch; errors
go to ``harness.cli`` (one line per problem, exit status 2)."""

from __future__ import annotations

import codecs
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.command_parser import integer_problems
from harness.errors import InputError, RunInterruptedError


@dataclass(frozen=True)
class InferenceOptions:
    """A checkpoint applied to a file of sentences."""

    ckpt: Path
    """a checkpoint of `sanbench fit`"""
    input: Path
    """UTF-8, one whitespace-tokenized sentence per line (pair tasks: two, tab-separated)"""
    out: Path
    """the file to write (predict: .csv, encode: .npy)"""
    batch_size: int = 128
    """sentences per batch"""
    encoding: str | None = None
    """decode the input file with this encoding (default UTF-8)"""

    def problems(self, suffix: str) -> list[str]:
        """Every problem with the paths and values, at once."""
        problems = [
            f"--{name} {path}: no such file"
            for name, path in (("ckpt", self.ckpt), ("input", self.input))
            if not path.is_file()
        ]
        if self.out.suffix != suffix:
            problems.append(f"--out {self.out}: expected a {suffix} file name")
        if not self.out.parent.is_dir():
            problems.append(f"--out {self.out}: folder {self.out.parent} does not exist")
        problems += integer_problems(self, {"batch_size": 1})
        if self.encoding is not None:
            try:
                codecs.lookup(self.encoding)
            except LookupError:
                problems.append(
                    f"--encoding: unknown encoding {self.encoding!r}; e.g. utf-8, cp1252"
                )
        return problems


def run_checked(options: InferenceOptions, suffix: str, apply: Callable[..., Path]) -> int:
    """Check the options (every problem at once, :class:`InputError`), then ``apply(ckpt,
    input, out, batch_size, progress, encoding)`` and print the file written."""
    problems = options.problems(suffix)
    if problems:
        raise InputError("\n".join(problems))
    encoding = None if options.encoding is None else codecs.lookup(options.encoding).name
    signal.signal(signal.SIGTERM, _terminated)  # the writer's on_exception removes its file
    progress = sys.stderr.isatty()
    o = options
    written = apply(o.ckpt, o.input, o.out, o.batch_size, progress, encoding)
    print(written)
    return 0


def _terminated(signum: int, frame: object) -> None:
    raise RunInterruptedError("terminated; nothing was written", signum)
