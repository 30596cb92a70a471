"""``harness.profiling.profile``: the options a sweep's manifest records and a resume's check
of the options given against them."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import InputError
from harness.profiling.options import ProfileOptions
from harness.profiling.profile import resumed_options, sweep_options
from reports.contracts.manifest import write_manifest


def test_the_manifest_records_an_options_current_name() -> None:
    """``--encoders mtsa:impl=tensor`` warns and labels its rows ``attention_impl=tensor``: the
    manifest records that spelling too (issue 55: it recorded ``impl=tensor``)."""
    recorded = sweep_options(ProfileOptions(encoders="mtsa:impl=tensor,multi_head"))
    assert recorded["encoders"] == "mtsa:attention_impl=tensor,multi_head"


@pytest.mark.parametrize(
    ("recorded", "given"),
    [
        ("mtsa:impl=tensor", "mtsa:attention_impl=tensor"),  # a folder of before the fix
        ("mtsa:impl=tensor", "mtsa:impl=tensor"),
        ("mtsa:attention_impl=tensor", "mtsa:impl=tensor"),
    ],
)
def test_a_resume_compares_encoders_by_their_current_names(
    tmp_path: Path, recorded: str, given: str
) -> None:
    """The spelling the warning recommends resumes a sweep recorded with the old one (issue 55:
    refused, "recorded with 'mtsa:impl=tensor'", exit 2), and the other way round."""
    write_manifest(tmp_path, {"kind": "profile", "options": {"encoders": recorded}})
    options = ProfileOptions(encoders=given, out=tmp_path, resume=True)
    assert resumed_options(options, {"encoders"}).encoders == recorded


def test_a_resume_with_other_encoders_is_refused(tmp_path: Path) -> None:
    write_manifest(tmp_path, {"kind": "profile", "options": {"encoders": "mtsa:impl=tensor"}})
    options = ProfileOptions(encoders="mtsa:attention_impl=fast", out=tmp_path, resume=True)
    with pytest.raises(InputError, match="recorded with 'mtsa:impl=tensor'"):
        resumed_options(options, {"encoders"})
