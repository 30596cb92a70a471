"""``ReportOptions``: the run folders ``sanbench report`` renders and where the site goes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ReportOptions:
    """An HTML/PNG site over run folders (fits, suites, studies, profiles, reproductions)."""

    runs: list[Path] = field(metadata={"positional": True})
    """run folders"""
    out: Path
    """folder for the site"""

    def __post_init__(self) -> None:
        """Every missing folder at once (``ValueError``, one line each): exit status 2."""
        missing = [f"{run}: no such folder" for run in self.runs if not Path(run).is_dir()]
        if missing:
            raise ValueError("\n".join(missing))
