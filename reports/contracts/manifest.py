"""``manifest.json``: what a run folder is (``kind``), the command that made it, its files.

Every command writes one into its ``--out`` folder; ``sanbench report`` recognises run folders
by it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reports.contracts.atomic import write_json_atomic

MANIFEST = "manifest.json"
# the kinds of run folder a manifest names, one per command that writes one
PROFILE_RUN = "profile"
SUITE_RUN = "suite"
REPRODUCE_RUN = "reproduce"
STUDY_RUN = "study"
FIT_RUN = "fit"
RUN_KINDS = (PROFILE_RUN, SUITE_RUN, REPRODUCE_RUN, STUDY_RUN, FIT_RUN)


def manifest_path(folder: Path) -> Path:
    return Path(folder) / MANIFEST


def has_manifest(folder: Path) -> bool:
    return manifest_path(folder).is_file()


def read_manifest(folder: Path, kind: str | None = None) -> dict[str, Any]:
    """The parsed manifest of ``folder``; ``ValueError`` naming the file and line when it is
    not JSON or its kind is unknown (or not ``kind``), ``FileNotFoundError`` when missing."""
    path = manifest_path(folder)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{path}, line {error.lineno}: not valid JSON ({error.msg}); the file should be "
            f"the {MANIFEST} that sanbench profile/suite/reproduce/tune/fit wrote"
        ) from None
    found = manifest.get("kind") if isinstance(manifest, dict) else None
    if found not in RUN_KINDS:
        raise ValueError(
            f"{path}, line 1: kind is {found!r}; expected one of {', '.join(RUN_KINDS)}"
        )
    if kind is not None and found != kind:
        raise ValueError(f"{path}: kind is {found!r}, expected {kind!r}")
    return manifest


def read_manifest_if_any(folder: Path, kind: str) -> dict[str, Any]:
    """The manifest of ``folder`` when there is one (checked to be ``kind``), else {}."""
    return read_manifest(folder, kind) if has_manifest(folder) else {}


def write_manifest(folder: Path, manifest: dict[str, Any]) -> Path:
    """Write ``folder/manifest.json`` atomically; ``manifest["kind"]`` must be a known kind."""
    if manifest.get("kind") not in RUN_KINDS:
        raise ValueError(f"manifest kind {manifest.get('kind')!r} is not one of {RUN_KINDS}")
    return write_json_atomic(manifest_path(folder), manifest)


def record_in_manifest(folder: Path, kind: str, **fields: Any) -> Path:
    """Add ``fields`` to ``folder``'s manifest of ``kind`` (a new one if there is none): what a
    command decides before its work starts and a resume reuses (e.g. its jobs' ``threads``)."""
    return write_manifest(folder, {**read_manifest_if_any(folder, kind), "kind": kind, **fields})
