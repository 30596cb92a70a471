"""``sanbench report RUNS... --out DIR``: a static HTML/PNG/SVG site from run folders.

RUNS are folders written by ``sanbench profile``, ``suite``, ``tune`` or ``fit`` (or folders
holding them); each is recognised by its manifest. Missing folders are rejected
before pandas and matplotlib load.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path


def existing_folder(value: str) -> Path:
    """An argparse type: a folder that exists."""
    path = Path(value).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{value}: no such folder")
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", type=existing_folder, metavar="RUNS", help="run folders")
    parser.add_argument("--out", type=Path, required=True, help="folder for the site")


def run(args: argparse.Namespace) -> int:
    from reports.site import build_site

    command = shlex.join(["sanbench", "report", *map(str, args.runs), "--out", str(args.out)])
    skipped: list = []
    index = build_site(args.runs, args.out, command, skipped)
    for note in skipped:
        print(f"sanbench report: left out {note.source}: {note.reason}", file=sys.stderr)
    print(index.resolve().as_uri())
    return 0
