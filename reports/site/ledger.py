"""The site's record of the pages it made (``OUT/.sanbench-site.json``), so that building into
the same ``--out`` again replaces them, removes the ones no longer built, and leaves every other
file alone: a page folder, or the index, that an earlier build did not make is never written
over; folders holding one are sites, not run folders. A page is built in a folder of its own
beside the others (``.sanbench-building-SLUG-*``) and moved into place, then recorded, when
whole: a build stopped midway leaves whole pages, each recorded, so the same command rebuilds."""

from __future__ import annotations

import json
import re
import secrets
import shutil
from pathlib import Path

from reports.contracts.atomic import write_json_atomic

LEDGER = ".sanbench-site.json"
INDEX = "index.html"
BUILDING = ".sanbench-building-"  # + slug: a page being built, moved to its slug when whole
SLUG = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")  # a folder name directly under out


def is_site(folder: Path) -> bool:
    return (Path(folder) / LEDGER).is_file()


class SiteLedger:
    """The page folders a previous build of ``out`` made, and those this build makes."""

    def __init__(self, out: Path, built: list[str] | None = None):
        self.out = Path(out)
        path = self.out / LEDGER
        previous = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        pages = previous.get("pages", []) if isinstance(previous, dict) else []
        self.previous = {p for p in pages if isinstance(p, str) and SLUG.fullmatch(p)}
        self.is_site = path.is_file()
        self.built = [] if built is None else built  # a caller's list sees each page made

    def not_made(self, slugs: list[str]) -> list[str]:
        """The names of ``out`` this build would write (``slugs``' page folders, the index)
        that exist and were not made by an earlier build."""
        taken = [s for s in slugs if (self.out / s).exists() and s not in self.previous]
        if (self.out / INDEX).exists() and not self.is_site:
            taken.append(INDEX)
        return taken

    def page_dir(self, slug: str) -> Path:
        """A new empty folder for ``slug``'s page, beside ``out/slug``: :meth:`built_page` moves
        it there when the page is whole, :meth:`drop_page` removes it."""
        self.out.mkdir(parents=True, exist_ok=True)
        return self._aside(slug)

    def _aside(self, slug: str) -> Path:
        """A new empty folder ``out/.sanbench-building-SLUG-RANDOM`` (made as any folder)."""
        folder = self.out / f"{BUILDING}{slug}-{secrets.token_hex(4)}"
        folder.mkdir()
        return folder

    def built_page(self, slug: str, page_dir: Path) -> None:
        """Move the whole page ``page_dir`` to ``out/slug`` (an earlier build's page there is
        replaced) and record it, with every page of the earlier build still there."""
        target = self.out / slug
        if target.is_dir():  # an earlier build's (not_made said so): moved aside, then removed
            old = self._aside(slug) / slug
            target.rename(old)
            page_dir.rename(target)
            shutil.rmtree(old.parent)
        else:
            page_dir.rename(target)
        self.built.append(slug)
        write_json_atomic(self.out / LEDGER, {"pages": sorted(self.previous | set(self.built))})

    def drop_page(self, page_dir: Path) -> None:
        """Remove a page this build started but could not finish (or was stopped in)."""
        shutil.rmtree(page_dir, ignore_errors=True)

    def finish(self) -> None:
        """Remove the earlier build's pages not built now, and any page folder a killed build
        left aside; record this build's pages."""
        for slug in sorted(self.previous - set(self.built)):
            if (self.out / slug).is_dir():
                shutil.rmtree(self.out / slug)
        for left in self.out.glob(f"{BUILDING}*"):
            shutil.rmtree(left, ignore_errors=True)
        write_json_atomic(self.out / LEDGER, {"pages": sorted(self.built)})
