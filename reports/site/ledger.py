"""The site's record of the pages it made (``OUT/.sanbench-site.json``), so that building into
the same ``--out`` again replaces them, removes the ones no longer built, and leaves every other
file alone: a page folder, or the index, that an earlier build did not make is never written
over; folders holding one are sites, not run folders."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from reports.contracts.atomic import write_json_atomic

LEDGER = ".sanbench-site.json"
INDEX = "index.html"
SLUG = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")  # a folder name directly under out


def is_site(folder: Path) -> bool:
    return (Path(folder) / LEDGER).is_file()


class SiteLedger:
    """The page folders a previous build of ``out`` made, and those this build makes."""

    def __init__(self, out: Path):
        self.out = Path(out)
        path = self.out / LEDGER
        previous = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        pages = previous.get("pages", []) if isinstance(previous, dict) else []
        self.previous = {p for p in pages if isinstance(p, str) and SLUG.fullmatch(p)}
        self.is_site = path.is_file()
        self.built: list[str] = []

    def not_made(self, slugs: list[str]) -> list[str]:
        """The names of ``out`` this build would write (``slugs``' page folders, the index)
        that exist and were not made by an earlier build."""
        taken = [s for s in slugs if (self.out / s).exists() and s not in self.previous]
        if (self.out / INDEX).exists() and not self.is_site:
            taken.append(INDEX)
        return taken

    def fresh_page_dir(self, slug: str) -> Path:
        """``out/slug``, emptied when an earlier build made it (no stale file survives)."""
        page_dir = self.out / slug
        if slug in self.previous and page_dir.is_dir():
            shutil.rmtree(page_dir)
        page_dir.mkdir(parents=True, exist_ok=True)
        return page_dir

    def built_page(self, slug: str) -> None:
        self.built.append(slug)

    def drop_page(self, slug: str) -> None:
        """Remove a page this build started but could not finish."""
        shutil.rmtree(self.out / slug, ignore_errors=True)

    def finish(self) -> None:
        """Remove the earlier build's pages not built now; record this build's pages."""
        for slug in sorted(self.previous - set(self.built)):
            if (self.out / slug).is_dir():
                shutil.rmtree(self.out / slug)
        write_json_atomic(self.out / LEDGER, {"pages": sorted(self.built)})
