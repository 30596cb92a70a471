"""The ``sanbench report`` command: its options' parser and its run function."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

from jsonargparse import Namespace

from harness.command_parser import CommandParser, build
from harness.errors import FilesError, FilesProblem, RunInterruptedError
from harness.interrupts import stop_word
from harness.outdir import out_folder, out_folder_problems
from harness.report.options import ReportOptions, report_command

OUT_AFTER_CHECKS = True  # --out is marked and locked once the options are right (harness.cli)


def add_arguments(parser: CommandParser) -> None:
    """The options; one left out or refused is said beside the other's problems."""
    parser.add_options(ReportOptions)
    parser.beside_missing = missing_beside


def missing_beside(namespace: Namespace) -> list[str]:
    """The other option's problems when one is left out or refused by a config file
    (``out: 7``: each missing run folder; ``runs: []``: ``--out afile``'s)."""
    values = {"runs": namespace.get("runs") or [], "out": namespace.get("out")}
    try:
        ReportOptions(**values)
    except FilesError as error:
        return [FilesProblem(line) for line in str(error).splitlines()] + out_beside(values)
    return out_beside(values)


def report(config: Namespace) -> int:
    """sanbench report: the HTML/PNG site over run folders (fits, suites, studies, profiles,
    reproductions), rendered from their files by reports.

        sanbench report runs/quick runs/suite --out runs/site
    """
    # checked before pandas or matplotlib is imported
    options = build(ReportOptions, config, beside=out_beside)
    with out_folder("report", options.out):
        return _site(options)


def out_beside(values: dict[str, Any]) -> list[str]:
    """``--out``'s problems (``--out afile``, a user's folder), said beside a missing run
    folder, not once it is fixed: the filesystem's alone (no pointer to the help)."""
    return [FilesProblem(line) for line in out_folder_problems(values.get("out"), "report")]


def _site(options: ReportOptions) -> int:
    """The site of ``options.runs`` built into ``options.out`` (taken by the caller)."""
    from reports.site import build_site

    command = report_command(options.runs, options.out)
    skipped: list = []
    made: list[str] = []
    try:
        index = build_site(options.runs, options.out, command, skipped, made)
    except (KeyboardInterrupt, RunInterruptedError) as stop:
        signum = stop.signum if isinstance(stop, RunInterruptedError) else signal.SIGINT
        raise RunInterruptedError(
            stopped_line(signum, made, options.out, command), signum
        ) from None
    for note in skipped:
        print(f"sanbench report: left out {note.source}: {note.reason}", file=sys.stderr)
    print(index.resolve().as_uri())
    return 0


def stopped_line(signum: int, made: list[str], out: Path, command: str) -> str:
    """What a report stopped by ``signum`` says: the pages it made whole (each moved into
    ``out`` when whole, and recorded: no half page is left) and the command that rebuilds."""
    stop = stop_word(signum)
    kept = f"kept the {len(made)} whole page(s) made in {out} ({', '.join(made)})"
    saved = kept if made else f"no page was finished in {out}"
    return f"{stop}: {saved}; no half-made page is kept\nrebuild with: {command}"
