"""Find run folders by their ``manifest.json`` and say what each one is."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reports.contracts.manifest import MANIFEST, has_manifest, read_manifest
from reports.contracts.suite_results import grid_of
from reports.site.ledger import is_site


@dataclass(frozen=True)
class Run:
    """One run folder: its kind (from the manifest), the manifest, and a page slug."""

    kind: str
    folder: Path
    manifest: dict[str, Any]
    slug: str

    @property
    def name(self) -> str:
        return self.folder.name


def may_hold_runs(folder: Path, site: Path | None) -> bool:
    """False for report sites (their pages hold copies of manifests), and for ``site``, the
    one being built: marked by ``sanbench report`` before its ledger is written, on a first
    build it is no site yet (issue 56 outside check, item 17)."""
    return not is_site(folder) and (site is None or folder.resolve() != site.resolve())


def manifest_folders(root: Path, site: Path | None = None) -> list[Path]:
    """Folders under ``root`` (itself included) holding a manifest, outermost only.

    A suite's per-run ``fit`` manifests belong to the suite and are not listed separately;
    report sites, and ``site`` (the one being built), are not run folders.
    """
    if not may_hold_runs(root, site):
        return []
    if has_manifest(root):
        return [root]
    found = []
    for current, subfolders, files in os.walk(root):
        subfolders[:] = sorted(
            name for name in subfolders if may_hold_runs(Path(current) / name, site)
        )
        if MANIFEST in files:
            found.append(Path(current))
            subfolders.clear()
    return found


def folders_without_runs(root: Path, runs: list[Path], site: Path | None = None) -> list[Path]:
    """Folders beside the run folders under ``root`` with no manifest in them or below (a run
    killed before its manifest, a half-copied folder, a folder of something else): the site
    leaves them out and says so. Hidden folders, report sites and ``site`` (the one being
    built) are not run folders."""
    if not runs or runs == [root]:
        return []
    ancestors = {root}
    for run in runs:
        ancestors.update(parent for parent in run.parents if parent.is_relative_to(root))
    return [
        child
        for folder in sorted(ancestors)
        for child in sorted(folder.iterdir())
        if child.is_dir()
        and child not in ancestors
        and child not in runs
        and not child.name.startswith(".")
        and may_hold_runs(child, site)
    ]


def _slug(kind: str, folder: Path, taken: set[str]) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", folder.name).strip("._") or "run"
    base = name if name.startswith(kind) else f"{kind}-{name}"
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    taken.add(slug)
    return slug


@dataclass(frozen=True)
class Skipped:
    """A path the site leaves out, and why (shown on the index page)."""

    source: str
    reason: str


def _read(folder: Path) -> dict[str, Any] | Exception:
    try:
        return read_manifest(folder)
    except (OSError, ValueError) as error:
        return error


def _grid_note(folder: Path, command: str, finished: int) -> str:
    """Why the ``finished`` runs of the suite (or reproduction) ``folder`` have no page."""
    if has_manifest(folder):  # the path given lies inside it
        return f"its {finished} run(s) found are on the {command}'s page: pass {folder}"
    return (
        f"a {command} still being written (or stopped): its {MANIFEST} comes when its runs "
        f"end, and its page with it; {finished} of its runs finished so far"
    )


def discover(
    paths: list[Path], skipped: list[Skipped] | None = None, site: Path | None = None
) -> list[Run]:
    """Every run under ``paths``, in the order given (each folder once); ``site``, the site
    being built (it may lie under a path: ``report runs --out runs/site``), is none.

    A path without a manifest, or with one that cannot be read, raises; with a ``skipped``
    list it is noted there instead, and only finding no run at all raises. The runs of a
    suite (or reproduction) found below a path have no page of their own: the suite's page
    shows them, and a suite without its manifest yet (still being written) is noted so.
    """
    runs: list[Run] = []
    seen: set[Path] = set()
    taken: set[str] = {"index"}

    def note(source: Path, error: Exception) -> None:
        if skipped is None:
            raise error
        skipped.append(Skipped(str(source), str(error)))

    for path in paths:
        path = Path(path)
        if not path.is_dir():
            raise FileNotFoundError(f"{path}: not a folder; pass run folders (or their parents)")
        folders = manifest_folders(path, site)
        if not folders:
            note(
                path,
                FileNotFoundError(
                    f"{path}: no {MANIFEST} in it or below; pass folders written by "
                    "sanbench profile, suite, reproduce, tune or fit"
                ),
            )
        found = [(folder, _read(folder)) for folder in folders]
        grids = {  # a suite's run found below the path -> the suite's folder and command
            folder: grid
            for folder, manifest in found
            if isinstance(manifest, dict) and folder != path and (grid := grid_of(folder, manifest))
        }
        inside = {folder: grid[0] for folder, grid in grids.items() if grid[0].is_relative_to(path)}
        places = sorted({inside.get(folder, folder) for folder in folders})  # a suite's as one
        for folder in folders_without_runs(path, places, site):
            note(
                folder,
                FileNotFoundError(
                    f"{folder}: no {MANIFEST} in it or below (a run killed before it wrote one, "
                    "a folder still being written or copied, or not a sanbench run folder)"
                ),
            )
        for folder, manifest in found:
            grid = grids.get(folder)
            source = grid[0] if grid else folder
            if source.resolve() in seen:
                continue
            seen.add(source.resolve())
            if grid:
                finished = sum(other[0] == grid[0] for other in grids.values())
                note(source, FileNotFoundError(_grid_note(*grid, finished)))
            elif isinstance(manifest, Exception):
                note(folder, manifest)
            else:
                kind = manifest["kind"]
                runs.append(Run(kind, folder, manifest, _slug(kind, folder, taken)))
    if not runs and skipped:
        raise FileNotFoundError("no run could be read: " + "; ".join(s.reason for s in skipped))
    return runs
