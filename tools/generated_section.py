"""A doc's generated section: the text between a BEGIN and an END marker line, which a tool
rewrites from committed results and a test compares with what those results give."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

END = "<!-- END generated -->"


@dataclass(frozen=True)
class GeneratedSection:
    doc: Path
    begin: str  # the BEGIN marker line, naming the tool and its sources

    def _pattern(self) -> re.Pattern[str]:
        return re.compile(re.escape(self.begin) + r"\n(.*?)\n?" + re.escape(END), re.DOTALL)

    def written(self) -> str:
        """The section as the doc holds it (ValueError when the markers are missing)."""
        match = self._pattern().search(self.doc.read_text())
        if match is None:
            raise ValueError(f"{self.doc}: no section between {self.begin!r} and {END!r}")
        return match.group(1)

    def rewrite(self, text: str) -> None:
        """Put ``text`` between the markers (which must be there)."""
        self.written()
        doc = self.doc.read_text()
        self.doc.write_text(self._pattern().sub(lambda _: f"{self.begin}\n{text}\n{END}", doc))
        print(f"rewrote the generated section of {self.doc}")
