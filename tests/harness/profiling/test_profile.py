"""``harness.profiling.profile``: the options a sweep's manifest records and a resume's check
of the options given against them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.cli import main
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


@pytest.mark.slow  # two predict-only sweeps, about 20 CPU s
def test_a_sweep_from_a_config_file_records_a_command_that_runs_where_the_file_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``profile --config p.yaml`` recorded ``sanbench profile --config p.yaml`` (the file as
    given, relative, not kept) in its manifest and page, as suite, tune and reproduce did
    before 1860a81; now the resolved config is kept beside the rows and named, and a resume
    keeps it as the first run wrote it."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "p.yaml"
    config.write_text(
        "encoders: bilstm\npredict_only: true\npredict_lengths: 16,32\nmodes: infer\n"
        "report: false\nprogress: false\nout: runs/p\n"
    )
    words = ["profile", "--config", str(config), "--dim", "16"]
    monkeypatch.setattr("sys.argv", ["sanbench", *words])
    assert main(words) == 0
    config.unlink()
    manifest = tmp_path / "runs/p/manifest.json"
    recorded = json.loads(manifest.read_text())["command"]
    # the file's out: runs/p, read beside it (docs/training.md), is named by its absolute path
    copy = tmp_path / "runs/p/profile-config.yaml"
    assert recorded == f"cd {tmp_path} && sanbench profile --config {copy}"
    saved = tmp_path / "runs/p/profile-config.yaml"
    first = saved.read_text()
    assert yaml.safe_load(first)["dim"] == 16 and yaml.safe_load(first)["encoders"] == "bilstm"
    resume = [*recorded.split()[4:], "--resume"]
    monkeypatch.setattr("sys.argv", ["sanbench", *resume])
    assert main(resume) == 0  # as printed, from another process: every point there already
    assert json.loads(manifest.read_text())["command"] == recorded and saved.read_text() == first
