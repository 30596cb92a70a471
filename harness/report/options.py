"""``ReportOptions``: the run folders ``sanbench report`` renders and where the site goes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import FilesError
from harness.redaction import runnable_line

SITE_FOLDER = "report"  # where a command that prints its report command puts the site: OUT/report


@dataclass(frozen=True)
class ReportOptions:
    """An HTML/PNG site over run folders (fits, suites, studies, profiles, reproductions)."""

    runs: list[Path] = field(metadata={"positional": True})
    """run folders"""
    out: Path
    """folder for the site"""

    def __post_init__(self) -> None:
        """Every missing folder, and a file given for one, at once (a ``FilesError``, one line
        each, the filesystem's alone: no pointer to the help): exit status 2."""
        problems = [_folder_problem(Path(run)) for run in self.runs if not Path(run).is_dir()]
        if problems:
            raise FilesError("\n".join(problems))  # the filesystem's alone: no pointer to help


def _folder_problem(run: Path) -> str:
    if run.exists():
        return (
            f"{run}: a file, not a folder; report takes run folders (a fit's, suite's, study's, "
            "profile's or reproduction's --out)"
        )
    return f"{run}: no such folder"


def report_command(runs: Sequence[Path], out: Path) -> str:
    """The ``sanbench report`` command line that renders ``runs`` into ``out``, runnable from
    any folder (``cd /abs && sanbench report ...``, :func:`runnable_line`): what ``sanbench
    report`` records and what other commands print."""
    return runnable_line(["report", *map(str, runs), "--out", str(out)])
