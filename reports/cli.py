"""``sanbench report RUNS... --out DIR``: a static HTML/PNG/SVG site from run folders.

RUNS are folders written by ``sanbench profile``, ``suite``, ``tune`` or ``fit`` (or folders
holding them); each is recognised by its ``manifest.json``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from reports.site import build_site


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUNS", help="run folders")
    parser.add_argument("--out", type=Path, required=True, help="folder for the site")


def run(args: argparse.Namespace) -> int:
    command = shlex.join(["sanbench", "report", *map(str, args.runs), "--out", str(args.out)])
    try:
        index = build_site(args.runs, args.out, command)
    except (FileNotFoundError, ValueError) as error:
        print(f"sanbench report: {error}", file=sys.stderr)
        return 2
    print(index.resolve().as_uri())
    return 0
