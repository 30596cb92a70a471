"""``sanbench report`` over half-written run folders and into an ``--out`` built before: a run
that cannot be read is left out with a note, pages are never duplicated, orphans are removed and
nothing the report did not make is touched or written over (issue 27 item 11, issue 54.6)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from harness.cli import main
from reports.contracts.manifest import STUDY_RUN
from reports.site import build_site
from reports.site.discover import Skipped
from reports.site.ledger import LEDGER
from tests.harness.test_outdir import NOT_OURS, refusal, sanbench, snapshot

FIXTURES = Path(__file__).parents[1] / "fixtures"
# each test builds a site: the pages and files it writes, not its figures' drawing
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("figures_not_drawn")]


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A folder of runs: two profile sweeps and a study, copied from the fixtures."""
    root = tmp_path / "runs"
    for name in ("profile-cpu-fp32", "profile-cpu-bf16", "study-block-length-memory"):
        shutil.copytree(FIXTURES / name, root / name)
    return root


def page_folders(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.is_dir())


def test_an_empty_csv_is_left_out_with_a_note(runs: Path, tmp_path: Path) -> None:
    (runs / "profile-cpu-bf16" / "profile.csv").write_text("")
    skipped: list[Skipped] = []
    index = build_site([runs], tmp_path / "site", skipped=skipped)
    assert [note.source for note in skipped] == [str(runs / "profile-cpu-bf16")]
    assert "no complete row yet" in skipped[0].reason
    assert page_folders(tmp_path / "site") == ["profile-cpu-fp32", "study-block-length-memory"]
    html = index.read_text()
    assert "Not included" in html and "profile-cpu-bf16" in html and "no complete row" in html


def test_an_empty_trials_file_is_left_out_and_a_torn_profile_row_is_cut(
    runs: Path, tmp_path: Path
) -> None:
    (runs / "study-block-length-memory" / "trials.csv").write_text("")
    csv = runs / "profile-cpu-fp32" / "profile.csv"
    csv.write_text(csv.read_text() + "disan,,16,trai")  # the sweep is writing this line
    skipped: list[Skipped] = []
    build_site([runs], tmp_path / "site", skipped=skipped)
    assert [Path(note.source).name for note in skipped] == ["study-block-length-memory"]
    assert page_folders(tmp_path / "site") == ["compare-profiles", *sorted(
        ["profile-cpu-bf16", "profile-cpu-fp32"]
    )]  # fmt: skip


def test_a_folder_without_manifest_is_noted_beside_readable_runs(
    runs: Path, tmp_path: Path
) -> None:
    half = tmp_path / "half"
    half.mkdir()
    (half / "profile.csv").write_text("encoder,seq_len\n")
    skipped: list[Skipped] = []
    build_site([runs, half], tmp_path / "site", skipped=skipped)
    assert [(note.source, "no manifest.json" in note.reason) for note in skipped] == [
        (str(half), True)
    ]
    assert len(page_folders(tmp_path / "site")) == 4


def test_a_folder_without_manifest_under_a_root_is_noted_too(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """``sanbench report runs/``: a fit killed before its manifest sits beside finished runs."""
    killed = runs / "fit-killed"
    (killed / "checkpoints").mkdir(parents=True)
    (killed / "fit_config.yaml").write_text("model: {}\n")
    (runs / ".cache").mkdir()  # hidden: not a run folder
    assert main(["report", str(runs), "--out", str(tmp_path / "site")]) == 0
    err = capsys.readouterr().err
    assert f"left out {killed}" in err and "no manifest.json in it or below" in err
    assert ".cache" not in err
    assert "fit-killed" in (tmp_path / "site" / "index.html").read_text()


def test_nothing_readable_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = tmp_path / "profile"
    shutil.copytree(FIXTURES / "profile-cpu-fp32", run)
    (run / "profile.csv").write_text("")
    assert main(["report", str(run), "--out", str(tmp_path / "site")]) == 2
    assert "no run could be read" in capsys.readouterr().err
    assert not (tmp_path / "site" / "index.html").exists()


def test_cli_names_what_it_left_out(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    (runs / "profile-cpu-bf16" / "profile.csv").write_text("")
    assert main(["report", str(runs), "--out", str(tmp_path / "site")]) == 0
    err = capsys.readouterr().err
    assert f"left out {runs / 'profile-cpu-bf16'}" in err


def test_building_into_a_folder_under_the_runs_twice_gives_the_same_pages(runs: Path) -> None:
    out = runs / "report"
    build_site([runs], out)
    first = page_folders(out)
    build_site([runs], out)  # the pages' copied manifests are not taken for runs
    assert page_folders(out) == first
    assert first == [
        "compare-profiles",
        "profile-cpu-bf16",
        "profile-cpu-fp32",
        "study-block-length-memory",
    ]


def test_the_site_being_built_under_the_runs_is_not_left_out_as_a_run(
    runs: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #56, item 17: the first ``report runs --out runs/rep_all`` said "left out
    runs/rep_all: no manifest.json in it or below (a run killed before it wrote one, ...)" of
    its own --out (marked at the start, no site until its first page); the second did not."""
    out = runs / "rep_all"
    for _ in range(2):
        assert main(["report", str(runs), "--out", str(out)]) == 0
        err = capsys.readouterr().err
        assert "left out" not in err, err
        assert "Not included" not in (out / "index.html").read_text()


def test_a_rebuild_removes_orphaned_and_stale_pages_and_keeps_other_files(
    runs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build_site([runs], out)
    (out / "notes.txt").write_text("mine")
    (out / "mine").mkdir()
    (out / "profile-cpu-fp32" / "stale.txt").write_text("from an older build")
    (runs / "profile-cpu-bf16" / "profile.csv").write_text("")  # now half-written
    build_site([runs / "profile-cpu-fp32", runs / "profile-cpu-bf16"], out)
    assert page_folders(out) == ["mine", "profile-cpu-fp32"]
    assert (out / "notes.txt").read_text() == "mine"
    assert not (out / "profile-cpu-fp32" / "stale.txt").exists()
    assert json.loads((out / LEDGER).read_text()) == {"pages": ["profile-cpu-fp32"]}


def test_a_ledger_never_points_outside_the_site(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    outside = tmp_path / "precious"
    outside.mkdir()
    out.mkdir()
    (out / LEDGER).write_text(json.dumps({"pages": ["../precious", "..", "/etc"]}))
    build_site([runs / "profile-cpu-fp32"], out)
    assert outside.is_dir()


def test_report_into_a_folder_of_the_users_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """The real command: on 023e32f it exited 0, the user's index.html and
    profile-p1/index.html replaced by generated pages without a word (issue 54.6)."""
    run = tmp_path / "profile-p1"
    shutil.copytree(FIXTURES / "profile-cpu-fp32", run)
    site = tmp_path / "site"
    (site / "profile-p1").mkdir(parents=True)
    (site / "index.html").write_text("<p>my index</p>\n")
    (site / "profile-p1" / "index.html").write_text("<p>my page</p>\n")
    before = snapshot(site)
    line = refusal(sanbench("report", str(run), "--out", str(site)))
    assert f"--out {site} holds index.html, profile-p1/, {NOT_OURS}" in line
    assert snapshot(site) == before


def test_a_page_folder_of_the_users_in_a_site_is_never_written_over(
    runs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build_site([runs / "profile-cpu-fp32"], out)
    (out / "study-block-length-memory").mkdir()  # the user's, named as the study's page
    (out / "study-block-length-memory" / "notes.txt").write_text("mine")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(ValueError, match="holds study-block-length-memory, which no sanbench"):
        build_site([runs], out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_an_index_no_build_made_is_never_written_over(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("<p>mine</p>")
    with pytest.raises(ValueError, match=r"holds index\.html, which no sanbench report made"):
        build_site([runs / "profile-cpu-fp32"], out)
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert (out / "index.html").read_text() == "<p>mine</p>"


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_report_stopped_in_a_page_keeps_the_whole_ones_and_its_rerun_rebuilds(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int, status: int
) -> None:
    """On 991e3db ``report`` SIGTERMed in a page exited 143 with only "terminated", leaving that
    page half-written and no ledger; the same command then exited 2 ("holds suite-su1, which no
    sanbench report made"). Each page is made aside and moved into place when whole."""
    from reports.site import build as site_build

    def stopped(run: object, page_dir: Path) -> None:
        (page_dir / "index.html").write_text("<p>half a page")
        os.kill(os.getpid(), signum)
        time.sleep(30)  # the signal's handler raises here
        raise AssertionError("the signal was not acted on")

    out = tmp_path / "site"
    argv = ["report", str(runs), "--out", str(out)]
    with monkeypatch.context() as patched:
        patched.setitem(site_build.BUILDERS, STUDY_RUN, stopped)  # built after both profiles
        done = sanbench(*argv)
    assert done.returncode == status
    stop = "terminated" if signum == signal.SIGTERM else "interrupted"
    assert done.stderr.splitlines() == [
        f"sanbench report: {stop}: kept the 2 whole page(s) made in {out} (profile-cpu-bf16, "
        "profile-cpu-fp32); no half-made page is kept",
        f"sanbench report: rebuild with: cd {os.getcwd()} && sanbench report {runs} --out {out}",
    ]
    assert page_folders(out) == ["profile-cpu-bf16", "profile-cpu-fp32"]
    assert json.loads((out / LEDGER).read_text()) == {
        "pages": ["profile-cpu-bf16", "profile-cpu-fp32"]
    }
    assert sanbench(*argv).returncode == 0
    assert page_folders(out) == [
        "compare-profiles",
        "profile-cpu-bf16",
        "profile-cpu-fp32",
        "study-block-length-memory",
    ]
