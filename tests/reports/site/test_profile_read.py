"""The profile page as a reader meets it (issue 56), on a quick-preset sweep run while the
machine was busy (every measured point contended, as a user's first run can be): growth
exponents fitted over contended points say so; each claim names the length it is read at; a
count or a cell is red only when it holds something to worry about; the long table of contended
points is folded under the figures."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from reports.profile.claims import papers_claims
from reports.profile.data import load_run
from reports.profile.growth import growth_table
from reports.site import profile_page
from reports.site.discover import discover

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
CONTENDED = FIXTURES / "profile-quick-contended"


def points(contended: list[bool]) -> pd.DataFrame:
    """One encoder's training times at L = 8, 16, 32, 64 growing as L^1."""
    lengths = [8, 16, 32, 64][: len(contended)]
    return pd.DataFrame(
        {
            "label": "bilstm",
            "mode": "train",
            "seq_len": lengths,
            "status": "ok",
            "time_ms_median": [float(n) for n in lengths],
            "peak_mem_mb": [float(n) for n in lengths],
            "peak_mem_mb_predicted": float("nan"),
            "contended": contended,
        }
    )


@pytest.mark.parametrize(
    ("contended", "counted"),
    [([False] * 3, 0), ([True, False, False], 1), ([True] * 3, 3), ([True, True, False, False], 2)],
)
def test_a_time_exponent_counts_the_contended_lengths_it_was_fitted_on(
    contended: list[bool], counted: int
) -> None:
    (row,) = growth_table(points(contended)).to_dict("records")
    assert row["time_contended"] == counted
    assert row["memory_contended"] == 0  # bytes are not inflated by other processes
    assert row["time_reliable"]  # a perfect line: R² alone would not flag it


def test_every_time_exponent_of_a_contended_sweep_says_so() -> None:
    table = growth_table(load_run(CONTENDED).rows)
    fitted = table[table["time_points"] > 0]
    assert len(fitted) == 18  # 9 encoders x 2 modes
    assert (fitted["time_contended"] == fitted["time_points"]).all()


def test_every_claim_read_off_a_memory_names_its_length() -> None:
    claims = papers_claims(load_run(CONTENDED).rows)
    with_memory = [c for c in claims if "MB" in c.basis]
    assert len(with_memory) >= 8  # MTSA Table 1's rows and the orderings
    assert [c.basis for c in with_memory if not re.match(r"L=\d+: ", c.basis)] == []


def test_a_claim_not_read_says_why_and_at_which_lengths_the_run_holds_its_encoders() -> None:
    """Outside check of #56, item 14: ``profile --lengths 8,16 --encoders bilstm,multi_cnn,mtsa``
    marked "bilstm uses 942 MB vs MTSA's 558 MB" "not measured", its basis empty: bilstm and
    MTSA were measured, at L = 8 and 16, not at the table's L = 64."""
    rows = load_run(CONTENDED).rows
    short = rows[rows["seq_len"] <= 16]
    claims = {c.claim: c for c in papers_claims(short)}
    assert {c.basis for c in claims.values() if c.basis == ""} == set()
    bilstm = claims["bilstm uses 942 MB vs MTSA's 558 MB"]
    assert (bilstm.verdict, bilstm.ours) == ("not at L=64", "–")
    assert bilstm.basis == "this run's training memory: bilstm at L=8, 16; mtsa at L=8, 16"
    without = papers_claims(short[short["label"] != "bigru"])
    bigru = next(c for c in without if c.claim.startswith("bigru uses"))
    assert (bigru.verdict, bigru.basis) == ("not measured", "no training rows of bigru in this run")
    growth = next(c for c in claims.values() if c.claim.startswith("bi_blosan training memory"))
    assert growth.verdict == "not enough lengths" and "(an exponent needs 3)" in growth.basis


@pytest.mark.slow  # draws the profile's figures
def test_a_predict_only_page_says_nothing_was_measured_and_shows_no_empty_table(
    tmp_path: Path,
) -> None:
    """Outside check of #56, item 15: a ``--predict-only`` run's page showed "Predicted vs
    measured memory" as a header without rows (and the longest-measured table likewise) and
    said "Times are the median of at least three timed steps"."""
    run = tmp_path / "profile-predicted"
    shutil.copytree(FIXTURES / "profile-cpu-fp32", run)
    rows = pd.read_csv(run / "profile.csv")
    rows["status"] = "predicted"  # what --predict-only writes: no measured point
    rows.to_csv(run / "profile.csv", index=False)
    page_dir = tmp_path / "page"
    profile_page.build(*discover([run]), page_dir)
    html = (page_dir / "index.html").read_text()
    assert "nothing measured or timed" in html and "timed steps" not in html
    assert "inference time" not in html.split('id="figures"', 1)[1].split("<figure>", 1)[0]
    for section in ("prediction", "longest"):
        body = html.split(f'id="{section}"', 1)[1].split("<h2", 1)[0]
        assert "<table>" not in body, section
    assert not list(page_dir.glob("time_*.png"))


def test_a_time_no_point_of_which_was_timed_says_so_not_that_lengths_are_missing() -> None:
    """Issue 56 leftovers: a ``--predict-only`` page's growth table said "not enough lengths"
    for the time exponent of encoders predicted at three lengths, where nothing was timed."""
    predicted = points([False] * 3).assign(
        status="predicted", time_ms_median=float("nan"), peak_mem_mb_predicted=[1.0, 2.0, 4.0]
    )
    (row,) = growth_table(predicted).to_dict("records")
    assert (row["time_range"], row["time_fitted"]) == ("nothing timed", False)
    assert (row["memory_range"], row["memory_fitted"]) == ("8-32", True)
    (short,) = growth_table(points([False] * 2)).to_dict("records")
    assert (short["time_range"], short["time_fitted"]) == ("not enough lengths", False)


@pytest.mark.slow  # draws the profile's figures
def test_a_predict_only_growth_table_has_no_time_columns_and_says_why(tmp_path: Path) -> None:
    """Issue 56 leftovers: ``profile --predict-only --lengths 16,32,64`` showed time exponents
    "–" with "not enough lengths" beside each of its memory exponents; nothing was timed."""
    run = tmp_path / "profile-predicted"
    shutil.copytree(FIXTURES / "profile-cpu-fp32", run)
    rows = pd.read_csv(run / "profile.csv")
    rows["status"] = "predicted"  # what --predict-only writes: predictions, no time
    rows["peak_mem_mb_predicted"], rows["time_ms_median"] = rows["peak_mem_mb"], float("nan")
    rows.to_csv(run / "profile.csv", index=False)
    page_dir = tmp_path / "page"
    profile_page.build(*discover([run]), page_dir)
    growth = (page_dir / "index.html").read_text().split('id="growth"', 1)[1].split("<h2", 1)[0]
    table = growth.split("<table>", 1)[1].split("</table>", 1)[0]
    assert "time k" not in table and "not enough lengths" not in table
    assert "Nothing was timed in this run (--predict-only)" in " ".join(growth.split())
    assert 'a cell "–" holds no exponent' in " ".join(growth.split())
    rows_html = re.findall(r"<tr>(.*?)</tr>", table, re.DOTALL)[1:]
    assert {len(re.findall(r"<td[^>]*>", row)) for row in rows_html} == {6}  # memory only


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    (run,) = discover([CONTENDED])
    page_dir = tmp_path_factory.mktemp("profile")
    profile_page.build(run, page_dir)
    return (page_dir / "index.html").read_text()


@pytest.mark.slow  # draws the profile's figures
def test_the_growth_table_marks_exponents_fitted_over_contended_points(page: str) -> None:
    growth = page.split('id="growth"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", growth, re.DOTALL)[1:]
    time_cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)[6] for row in rows]
    assert len(time_cells) == 18
    assert all(re.search(r"\((\d) of \1 lengths contended\)$", cell) for cell in time_cells)
    assert growth.count("<td class=bad>") >= 18


@pytest.mark.slow  # draws the profile's figures
def test_nothing_is_red_that_holds_nothing_to_worry_about(page: str) -> None:
    assert re.search(r"<span>0 out of memory</span>", page)
    longest = page.split('id="longest"', 1)[1].split("</table>", 1)[0]
    assert "<td>–</td></tr>" in longest and 'class="bad">–' not in longest


@pytest.mark.slow  # draws the profile's figures
def test_the_contended_points_are_folded_under_the_figures(page: str) -> None:
    figures_end = page.rindex("<figure>", 0, page.index('id="claims"'))
    table = page.index("Contended points")
    assert figures_end < table
    assert re.search(r"<details>\s*<summary[^>]*>Contended points: 54 ", page)
    # the links' target lies inside the fold: following one opens it (test_pages_read_browser)
    assert page.index('id="contended"') > table


@pytest.mark.parametrize("fixture", ["profile-cpu-fp32", "profile-quick-contended"])
def test_the_predict_further_command_has_the_pages_shape(fixture: str) -> None:
    """Issue 56 (H11.5): the fits table's hint printed ``sanbench profile --predict-only
    --predict-lengths 16:4096:16``, which predicts the preset's batch and width and encoders,
    not the page's."""
    import shlex

    from harness.cli import parse_command

    rows = load_run(FIXTURES / fixture).rows
    (command,) = profile_page.predict_further(rows)
    words = shlex.split(command)
    assert words[:2] == ["sanbench", "profile"]
    config = parse_command("profile", words[2:])
    assert (config.batch_size, config.dim) == (rows["batch_size"].iloc[0], rows["dim"].iloc[0])
    assert config.encoders.split(",") == list(dict.fromkeys(rows["label"]))
    assert set(config.modes.split(",")) == set(rows["mode"]) and config.predict_only
