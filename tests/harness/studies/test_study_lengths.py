"""``tune --lengths`` is parsed once, by the options' check; the study reads those values."""

from __future__ import annotations

import pytest

import harness.studies.options as study_options
from harness.studies.options import StudyOptions


def test_lengths_are_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    parse = study_options.parse_lengths

    def counted(text: str, option: str = "--lengths") -> list[int]:
        calls.append(text)
        return parse(text, option)

    monkeypatch.setattr(study_options, "parse_lengths", counted)
    options = StudyOptions(study="block-length-memory", lengths="64,32:64:32")
    assert options.name.endswith("-n32-64")
    assert options.context().lengths == options.length_values == (32, 64)
    assert calls == ["64,32:64:32"]
