"""Which folders ``sanbench report`` takes for runs: a suite's own runs are the suite's, also
while the suite is still being written (issue 56 outside check C item 7)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reports.site.discover import Skipped, discover

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A suite whose manifest is not written yet (it writes it when its runs end)."""
    folder = tmp_path / "runs" / "s1"
    shutil.copytree(FIXTURES / "suite-tiny", folder)
    (folder / "manifest.json").unlink()
    return folder


def test_a_suite_being_written_is_left_out_whole_not_as_anonymous_fits(
    suite: Path, tmp_path: Path
) -> None:
    """'report b/runs/s1 ...' while the suite's last run was testing made pages 'fit-fold0',
    'fit-fold0-2', 'fit-fold1', ... of its finished runs."""
    profile = tmp_path / "p1"
    shutil.copytree(FIXTURES / "profile-cpu-fp32", profile)
    finished = len(list(suite.glob("runs/*/*/*/manifest.json")))
    (suite / "runs" / "cr" / "multi_cnn" / "fold1").mkdir()  # the run being written
    for given in ([suite, profile], [tmp_path / "runs", profile]):
        skipped: list[Skipped] = []
        runs = discover(given, skipped)
        assert [run.kind for run in runs] == ["profile"]
        [note] = skipped
        assert note.source == str(suite)
        assert "a suite still being written (or stopped): its manifest.json comes" in note.reason
        assert f"{finished} of its runs finished so far" in note.reason
    with pytest.raises(FileNotFoundError, match=r"no run could be read: .* still being written"):
        discover([suite], [])


def test_a_folder_inside_a_finished_suite_points_to_the_suite(tmp_path: Path) -> None:
    suite = tmp_path / "s1"
    shutil.copytree(FIXTURES / "suite-tiny", suite)
    skipped: list[Skipped] = []
    with pytest.raises(FileNotFoundError, match="on the suite's page: pass"):
        discover([suite / "runs"], skipped)
    assert [note.source for note in skipped] == [str(suite)]
    [run] = discover([suite / "runs" / "cr" / "multi_cnn" / "fold0"])  # one named: its page
    assert run.kind == "fit"


@pytest.mark.parametrize("folder", ["", "cd /work/a && "])  # the line as recorded since b5a84ba
def test_a_fit_of_its_own_in_a_folder_laid_out_like_a_suites_is_a_run(
    folder: str, tmp_path: Path
) -> None:
    fit = tmp_path / "x" / "runs" / "cr" / "multi_cnn" / "fold0"
    shutil.copytree(FIXTURES / "suite-tiny" / "runs" / "cr" / "multi_cnn" / "fold0", fit)
    manifest = fit / "manifest.json"
    manifest.write_text(manifest.read_text().replace("sanbench suite", f"{folder}sanbench fit"))
    skipped: list[Skipped] = []
    assert [run.folder for run in discover([tmp_path], skipped)] == [fit]
    assert skipped == []
    manifest.write_text(manifest.read_text().replace("sanbench fit", "sanbench suite"))
    with pytest.raises(FileNotFoundError, match="no run could be read: a suite still being"):
        discover([tmp_path / "x"], skipped)
