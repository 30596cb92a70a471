"""``sanbench report`` over the fixture run folders: every page, link and image is there."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import pytest

from harness.cli import main
from reports.numbers import count, percent, quantity, ratio
from reports.profile.data import load_run
from reports.site import build_site
from reports.site.compare_page import labels, ratio_summary, ratios
from reports.site.discover import discover
from reports.site.training_figures import accuracy_by_length

FIXTURES = Path(__file__).parent / "fixtures"
PROFILES = [FIXTURES / "profile-cpu-fp32", FIXTURES / "profile-cpu-bf16"]
SUITE = FIXTURES / "suite-tiny"
STUDY = FIXTURES / "study-block-length-memory"
FIT = SUITE / "runs" / "sst2" / "bi_blosan" / "seed0"


class References(HTMLParser):
    """Every href/src of a page, and whether any points off the machine."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.targets += [v for k, v in attrs if k in ("href", "src") and v]


def references(page: Path) -> list[str]:
    parser = References()
    parser.feed(page.read_text())
    return parser.targets


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site([*PROFILES, SUITE, STUDY, FIT], out, "sanbench report fixtures")
    return out


@pytest.mark.slow
def test_every_link_and_image_of_every_page_exists(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    expected = {"index", "profile-cpu-fp32", "profile-cpu-bf16", "suite-tiny"}
    expected |= {"study-block-length-memory", "fit-seed0", "compare-profiles"}
    assert {p.parent.name if p.parent != site else "index" for p in pages} >= expected
    checked = 0
    for page in pages:
        for target in references(page):
            parts = urlsplit(target)
            assert not parts.scheme and not parts.netloc, f"{page}: external reference {target}"
            if not parts.path:
                continue  # an anchor on the same page
            assert (page.parent / unquote(parts.path)).is_file(), f"{page}: broken {target}"
            checked += 1
    assert checked > 100
    for png in site.rglob("*.png"):
        assert png.stat().st_size > 1000, png
    own = [p for p in site.rglob("*.png") if p.parent.name != "study"]
    assert all(p.with_suffix(".svg").is_file() for p in own)


@pytest.mark.slow
def test_index_links_every_page(site: Path) -> None:
    targets = set(references(site / "index.html"))
    for slug in ("profile-cpu-fp32", "suite-tiny", "study-block-length-memory", "fit-seed0"):
        assert f"{slug}/index.html" in targets
    assert "compare-profiles/index.html" in targets


@pytest.mark.slow
def test_pages_state_environment_and_command(site: Path) -> None:
    profile = (site / "profile-cpu-bf16" / "index.html").read_text()
    assert "--dtype bf16" in profile and "2df70f2-dirty" in profile and "jemalloc" in profile
    suite = (site / "suite-tiny" / "index.html").read_text()
    assert "sanbench suite --tasks sst2,cr" in suite and "precision 32-true" in suite
    assert "Bi-BloSAN Table 6: sentence classification" in suite and "87.4 (0.2)" in suite
    assert "lightning" in suite and "2.13.0+cpu" in suite
    assert "<title>suite-tiny" in suite and "Suite suite" not in suite
    # only the grid's own CV task is named: 1 seed for SST-2, 1 fold of CR
    assert "1 seed (non-CV tasks), 1 fold (CV tasks: cr)" in " ".join(suite.split())
    study = (site / "study-block-length-memory" / "index.html").read_text()
    assert "sanbench tune --study block-length-memory" in study and "Per length n" in study
    # a recorded command is a record: the fixture's `--repeats 2` is refused by today's profile
    assert "--repeats 2" in profile and "as recorded when the run was made" in profile
    compare = (site / "compare-profiles" / "index.html").read_text()
    assert "as recorded when the run was made" in compare


@pytest.mark.slow
def test_suite_page_has_the_papers_figures(site: Path) -> None:
    page = site / "suite-tiny"
    for stem in ("mtsa_fig1c_sst2", "bi_blosan_fig1_cr", "bi_blosan_fig5_cr"):
        assert (page / f"{stem}.png").is_file() and (page / f"{stem}.svg").is_file()
    assert (page / "accuracy_by_length_sst2.png").is_file()
    html = (page / "index.html").read_text()
    assert 'src="bi_blosan_fig5_sst2.png"' in html
    # summary numbers come from results-1-of-1.csv, formatted once for every page
    results = pd.read_csv(SUITE / "results-1-of-1.csv")
    row = results[(results.task == "cr") & (results.encoder == "bi_blosan")].iloc[0]
    assert f"<td>{count(row.params)}</td>" in html
    assert f"<td>{quantity(row.peak_train_mem_mb)}</td>" in html


@pytest.mark.slow
def test_comparison_page_overlays_and_ratios(site: Path) -> None:
    page = site / "compare-profiles"
    html = (page / "index.html").read_text()
    assert "Comparison: fp32 vs bf16" in html and "bf16 / fp32" in html
    for stem in ("overlay_time_infer", "overlay_memory_train", "ratio_1_infer", "ratio_1_train"):
        assert (page / f"{stem}.png").is_file()
    fp32 = load_run(PROFILES[0]).rows
    bf16 = load_run(PROFILES[1]).rows
    table = ratios(fp32, bf16)
    point = table[(table.encoder == "disan") & (table["mode"] == "train") & (table.seq_len == 64)]
    expected = (
        bf16.query("encoder == 'disan' and mode == 'train' and seq_len == 64").time_ms_median.item()
        / fp32.query(
            "encoder == 'disan' and mode == 'train' and seq_len == 64"
        ).time_ms_median.item()
    )
    assert point.time_ratio.item() == pytest.approx(expected)
    assert ratio(expected) in html


def test_ratios_geometric_mean_and_longest() -> None:
    base = pd.DataFrame(
        {
            "encoder": "e",
            "label": "e",
            "mode": "infer",
            "seq_len": [8, 16, 32],
            "status": ["ok", "ok", "ok"],
            "time_ms_median": [1.0, 2.0, 4.0],
            "peak_mem_mb": [1.0, 1.0, 1.0],
            "contended": [False, False, True],
        }
    )
    other = base.assign(
        time_ms_median=[2.0, 8.0, 4.0], status=["ok", "ok", "oom"], contended=[False, True, False]
    )
    (row,) = ratio_summary(ratios(base, other))
    assert row["lengths"] == 2 and row["longest"] == 16
    assert row["contended"] == 1 and row["contended_longest"]  # either side's timing counts
    assert row["time_geomean"] == pytest.approx((2.0 * 4.0) ** 0.5)
    assert row["time_longest"] == pytest.approx(4.0) and row["memory_geomean"] == 1.0


def test_run_labels_name_what_differs() -> None:
    envs = [{"device": "cuda", "dtype": "fp32"}, {"device": "cuda", "dtype": "bf16"}]
    assert labels(envs, ["a", "b"]) == ["fp32", "bf16"]
    assert labels([{"dtype": "fp32"}, {"dtype": "fp32"}], ["a", "b"]) == ["a", "b"]
    sizes = [{"batch_size": "8", "dim": "300"}, {"batch_size": "16", "dim": "300"}]
    assert labels(sizes, ["a", "b"]) == ["batch size 8", "batch size 16"]  # issue 56: not "8"
    machines = [
        {"device_name": "AMD EPYC", "threads": "2", "cpu_capability": "AVX2"},
        {"device_name": "Intel Xeon", "threads": "4", "cpu_capability": "AVX512"},
    ]
    assert labels(machines, ["a", "b"]) == ["a", "b"]  # three options: the page lists them


def test_accuracy_by_length_bins() -> None:
    rows = pd.DataFrame(
        {
            "index": range(5),
            "length": [3, 5, 6, 40, 41],
            "label": [1, 0, 1, 1, 0],
            "prediction": [1, 1, 1, 1, 1],
        }
    )
    pair = rows.assign(length_b=rows["length"])
    table = accuracy_by_length({("sst1", "disan", "seed0"): rows, ("snli", "disan", "seed0"): pair})
    got = {r.bin: (r.examples, r.accuracy) for r in table.itertuples()}
    assert set(table["task"]) == {"sst1"}  # pairs are left out
    assert got == {"≤5": (2, 0.5), "6–12": (1, 1.0), ">38": (2, 0.5)}


def test_number_formats() -> None:
    assert [quantity(v) for v in (1234.5, 123.4, 12.34, 1.234, 0.01234, None)] == [
        "1,234",
        "123",
        "12.3",
        "1.23",
        "0.0123",
        "–",
    ]
    assert (count(3429302), percent(0.6000000238), ratio(1.5)) == ("3,429,302", "60.0", "1.50×")


def test_discovery_skips_a_suites_own_runs_and_names_bad_manifests(tmp_path: Path) -> None:
    runs = discover([FIXTURES])
    kinds = sorted(run.kind for run in runs)
    assert kinds == ["profile"] * 3 + ["reproduce", "study", "study", "suite", "suite"]
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text('{"kind": "profile",\n oops}')
    with pytest.raises(ValueError, match=r"bad/manifest.json, line 2: not valid JSON"):
        discover([bad])
    (bad / "manifest.json").write_text(json.dumps({"kind": "other"}))
    with pytest.raises(ValueError, match="kind is 'other'; expected one of profile"):
        discover([bad])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"no manifest\.json"):
        discover([empty])


def test_cli_builds_the_site_and_reports_errors(tmp_path: Path, capsys) -> None:
    study = tmp_path / "study"
    shutil.copytree(STUDY, study)
    assert main(["report", str(study), "--out", str(tmp_path / "site")]) == 0
    assert capsys.readouterr().out.strip() == (tmp_path / "site" / "index.html").as_uri()
    (study / "trials.csv").unlink()
    assert main(["report", str(study), "--out", str(tmp_path / "site")]) == 2
    assert "trials.csv not found" in capsys.readouterr().err


def test_fit_config_sections_show_as_dotted_keys_and_flat_configs_as_they_are() -> None:
    from reports.site.training_page import flat_config

    nested = {"trainer": {"precision": "bf16-mixed"}, "model": {"encoder_options": {}}, "out": "o"}
    assert flat_config(nested) == {
        "trainer.precision": "bf16-mixed",
        "model.encoder_options": {},
        "out": "o",
    }
    older = {"precision": "32-true", "encoder_options": {"block_len": 4}}
    assert flat_config(older) == older
