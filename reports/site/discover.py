"""Find run folders by their ``manifest.json`` and say what each one is."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"
KINDS = ("profile", "suite", "reproduce", "study", "fit")


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


def read_manifest(path: Path) -> dict[str, Any]:
    """The parsed manifest; a clear error naming the file and line when it is not JSON."""
    try:
        manifest = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{path}, line {error.lineno}: not valid JSON ({error.msg}); the file should be "
            "the manifest.json that sanbench profile/suite/reproduce/tune/fit wrote"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("kind") not in KINDS:
        kind = manifest.get("kind") if isinstance(manifest, dict) else None
        raise ValueError(f"{path}, line 1: kind is {kind!r}; expected one of {', '.join(KINDS)}")
    return manifest


def manifest_folders(root: Path) -> list[Path]:
    """Folders under ``root`` (itself included) holding a manifest, outermost only.

    A suite's per-run ``fit`` manifests belong to the suite and are not listed separately.
    """
    if (root / MANIFEST).is_file():
        return [root]
    found = []
    for current, subfolders, files in os.walk(root):
        subfolders.sort()
        if MANIFEST in files:
            found.append(Path(current))
            subfolders.clear()
    return found


def _slug(kind: str, folder: Path, taken: set[str]) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", folder.name).strip("._") or "run"
    base = name if name.startswith(kind) else f"{kind}-{name}"
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    taken.add(slug)
    return slug


def discover(paths: list[Path]) -> list[Run]:
    """Every run under ``paths``, in the order given (each folder once)."""
    runs: list[Run] = []
    seen: set[Path] = set()
    taken: set[str] = {"index"}
    for path in paths:
        path = Path(path)
        if not path.is_dir():
            raise FileNotFoundError(f"{path}: not a folder; pass run folders (or their parents)")
        folders = manifest_folders(path)
        if not folders:
            raise FileNotFoundError(
                f"{path}: no {MANIFEST} in it or below; pass folders written by "
                "sanbench profile, suite, reproduce, tune or fit"
            )
        for folder in folders:
            resolved = folder.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            manifest = read_manifest(folder / MANIFEST)
            kind = manifest["kind"]
            runs.append(Run(kind, folder, manifest, _slug(kind, folder, taken)))
    return runs
