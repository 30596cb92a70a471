"""The ``sanbench report`` command: its options' parser and its run function."""

from __future__ import annotations

import sys

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.report.options import ReportOptions, report_command


def add_arguments(parser: CommandParser) -> None:
    parser.add_options(ReportOptions)


def report(config: Namespace) -> int:
    """sanbench report: the HTML/PNG site over run folders (fits, suites, studies, profiles,
    reproductions), rendered from their files by reports.

        sanbench report runs/quick runs/suite --out runs/site
    """
    options = build(ReportOptions, config)  # checked before pandas or matplotlib is imported
    from reports.site import build_site

    command = report_command(options.runs, options.out)
    skipped: list = []
    index = build_site(options.runs, options.out, command, skipped)
    for note in skipped:
        print(f"sanbench report: left out {note.source}: {note.reason}", file=sys.stderr)
    print(index.resolve().as_uri())
    return 0
