"""``manifest.json``: written atomically with a known kind, read back checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reports.contracts.manifest import (
    MANIFEST,
    has_manifest,
    read_manifest,
    read_manifest_if_any,
    write_manifest,
)


def test_round_trip(tmp_path: Path) -> None:
    manifest = {"kind": "suite", "command": "sanbench suite", "grid": {"seeds": 2}}
    assert write_manifest(tmp_path / "run", manifest) == tmp_path / "run" / MANIFEST
    assert has_manifest(tmp_path / "run")
    assert read_manifest(tmp_path / "run", "suite") == manifest
    assert [p.name for p in (tmp_path / "run").iterdir()] == [MANIFEST]  # no temporary left


def test_unknown_or_unexpected_kinds_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="manifest kind 'other'"):
        write_manifest(tmp_path, {"kind": "other"})
    assert not has_manifest(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps({"kind": "fit"}))
    with pytest.raises(ValueError, match="kind is 'fit', expected 'profile'"):
        read_manifest(tmp_path, "profile")
    (tmp_path / MANIFEST).write_text('{"kind":\n')
    with pytest.raises(ValueError, match=r"manifest.json, line 2: not valid JSON"):
        read_manifest(tmp_path)


def test_a_missing_manifest_reads_as_empty_only_when_asked(tmp_path: Path) -> None:
    assert read_manifest_if_any(tmp_path, "reproduce") == {}
    with pytest.raises(FileNotFoundError):
        read_manifest(tmp_path)
