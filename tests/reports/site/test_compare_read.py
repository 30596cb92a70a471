"""The comparison page says what differs between its runs and what a ratio can mean (issue 56):
two runs that differ only in batch size read "Comparison: 8 vs 16" on 023e32f; runs timed on
two machines gave time ratios like any other; and ratios of 1.00 were drawn on an axis reading
``1e−6+9.9999e−1`` with ticks 2…10."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import pytest

from reports.contracts.profile_run import OK
from reports.profile.data import load_run
from reports.profile.figures import RING
from reports.site import build_site, compare_page
from reports.site.build import COMPARISON_SLUG
from reports.site.discover import discover
from tests.reports.figure_text import svg_texts

PROFILE = Path(__file__).resolve().parents[1] / "fixtures" / "profile-cpu-fp32"


def variant(tmp_path: Path, name: str, rows: dict, environment: dict | None = None) -> Path:
    """A copy of the fixture profile whose rows (and manifest) record other values."""
    folder = tmp_path / name
    shutil.copytree(PROFILE, folder)
    table = pd.read_csv(folder / "profile.csv")
    for column, value in rows.items():
        table[column] = value(table) if callable(value) else value
    table.to_csv(folder / "profile.csv", index=False)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["config"].update({k: v for k, v in rows.items() if k in manifest["config"]})
    manifest["environment"].update(environment or {})
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def compare(tmp_path: Path, folders: list[Path]) -> tuple[str, Path]:
    page_dir = tmp_path / "compare"
    page = compare_page.build(discover(folders), page_dir, slug="compare")
    return page.title + "\n" + (page_dir / "index.html").read_text(), page_dir


def cells(html: str, section: str) -> list[list[str]]:
    body = html.split(f'id="{section}"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL)
    found = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL) for row in rows]
    return [row for row in found if row]  # not the header


@pytest.mark.slow  # draws the comparison's figures
def test_runs_that_differ_in_batch_size_are_named_by_it(tmp_path: Path) -> None:
    small = variant(tmp_path, "profile-b8", {"batch_size": 8})
    large = variant(tmp_path, "profile-b16", {"batch_size": 16})
    html, _ = compare(tmp_path, [small, large])
    assert "Comparison: batch size 8 vs 16" in html
    assert "Ratio batch size 16 / batch size 8" in html
    assert "They differ in batch size (8 vs 16)" in html
    assert "cross-machine" not in html.lower()  # one machine: the times compare encoders


@pytest.mark.slow  # draws the comparison's figures
def test_one_machine_at_two_thread_counts_is_not_called_two_machines(tmp_path: Path) -> None:
    """Outside check (issue 56): runs on one CPU at --threads 2 and 1 were "timed on different
    machines (threads 2 vs 1)", then (outside check of #56, item 10) every time ratio was
    "(cross-machine)", the note "not timed on the same machine and settings"."""
    one = variant(tmp_path, "profile-one", {}, {})
    two = variant(tmp_path, "profile-two", {"threads": 4}, {"threads": "4"})
    html, page_dir = compare(tmp_path, [one, two])
    assert "Comparison: threads 1 vs 4" in html and "They differ in threads (1 vs 4)" in html
    assert "cross-machine" not in html.lower() and "different machines" not in html
    assert "cross-machine" not in " ".join(svg_texts(page_dir / "ratio_1_infer.svg"))


@pytest.mark.slow  # builds two sites (their figures made, not drawn)
@pytest.mark.usefixtures("figures_not_drawn")
def test_a_run_that_measured_nothing_is_named_and_not_compared(tmp_path: Path) -> None:
    """Outside check of #56, item 9: ``report runs/ppred runs/pb8`` (ppred a --predict-only
    run, given first) made pb8 the baseline of a page saying "the first is the baseline", titled
    "batch size 8 vs 64" without a word that ppred measured nothing, its ratio table a header
    without rows (issue 35 had put the measured run first, silently)."""
    predicted = variant(tmp_path, "profile-pred", {"status": "predicted", "batch_size": 64})
    small = variant(tmp_path, "profile-b8", {"batch_size": 8})
    large = variant(tmp_path, "profile-b16", {"batch_size": 16})
    not_compared = f"<code>{predicted}</code>: a --predict-only run, which measured nothing"

    build_site([predicted, small], tmp_path / "two", "test")
    assert not (tmp_path / "two" / COMPARISON_SLUG).exists()
    index = (tmp_path / "two" / "index.html").read_text()
    assert "No comparison: fewer than two of the profile runs measured anything" in index
    assert not_compared in index

    build_site([predicted, small, large], tmp_path / "three", "test")
    assert not_compared in (tmp_path / "three" / "index.html").read_text()
    html = (tmp_path / "three" / COMPARISON_SLUG / "index.html").read_text()
    lead = html.split('class="lead"', 1)[1].split("</p>", 1)[0]
    named = lead.replace(str(tmp_path), "TMP")  # the paths it names may hold 64 (pytest-1464)
    assert "<title>Comparison: batch size 8 vs 16" in html and "64" not in named
    assert f"Not compared: <code>{predicted}</code> (a --predict-only run" in lead
    assert cells(html, "ratio-1") and 'id="ratio-2"' not in html
    baseline = re.search(r"<li><a[^>]*>([^<]*)</a> \(<code>([^<]*)</code>\) \(baseline\)", html)
    assert baseline and baseline.groups() == ("batch size 8", str(small))


@pytest.mark.slow  # draws the comparison's figures
def test_time_ratios_across_machines_say_so_and_memory_ratios_do_not(tmp_path: Path) -> None:
    here = variant(tmp_path, "profile-here", {}, {"cpu_capability": "AVX512"})
    there = variant(
        tmp_path,
        "profile-there",
        {"device_name": "Intel Xeon", "threads": 4},
        {"cpu_capability": "AVX2", "device_name": "Intel Xeon", "threads": "4"},  # as recorded
    )
    html, _ = compare(tmp_path, [here, there])
    assert "Cross-machine" in html and "threads 1 vs 4" in html and "ISA AVX512 vs AVX2" in html
    rows = cells(html, "ratio-1")
    assert rows and all(len(row) == 8 for row in rows)
    for row in rows:
        time_mean, memory_mean, time_longest, memory_longest = row[3], row[4], row[6], row[7]
        assert time_mean.endswith("(cross-machine)") and time_longest.endswith("(cross-machine)")
        assert "cross" not in memory_mean + memory_longest


@pytest.mark.slow  # draws the comparison's figures
def test_ratios_of_one_read_as_one(tmp_path: Path) -> None:
    base = variant(tmp_path, "profile-a", {"allocator": "glibc"})
    same = variant(
        tmp_path,
        "profile-b",
        {
            "allocator": "jemalloc",
            "time_ms_median": lambda t: t["time_ms_median"] * (1 + 1e-6 * (t.index % 3)),
        },
    )
    _, page_dir = compare(tmp_path, [base, same])
    for svg in sorted(page_dir.glob("ratio_1_*.svg")):
        texts = svg_texts(svg)
        assert not [t for t in texts if re.search(r"e[−-]\d|^[+−-]?\d*\.?\d+e", t)], texts
        ticks = [float(t.replace("−", "-")) for t in texts if re.fullmatch(r"[−-]?\d+\.\d+", t)]
        assert ticks and all(0.8 <= tick <= 1.2 for tick in ticks), (svg.name, ticks)
        assert any(tick == pytest.approx(1.0) for tick in ticks)


@pytest.mark.slow  # draws the comparison's figures
def test_growth_exponents_over_contended_points_say_so_per_run(tmp_path: Path) -> None:
    quiet = variant(tmp_path, "profile-quiet", {"contended": False})
    busy = variant(tmp_path, "profile-busy", {"contended": True, "allocator": "glibc"})
    html, _ = compare(tmp_path, [quiet, busy])
    rows = cells(html, "growth")
    assert len(rows) == 6  # three encoders, two modes
    for row in rows:  # encoder, mode, memory k per run, time k per run
        assert "contended" not in " ".join(row[2:5])  # memory, and the quiet run's time
        assert row[5].endswith("(4 of 4 lengths contended)")


@pytest.mark.slow  # draws the comparison's figures
def test_an_encoder_a_run_only_predicted_reads_nothing_timed(tmp_path: Path) -> None:
    """Issue 56 leftovers: beside a timed run, a run that predicted an encoder without timing
    it (its points ``predicted``) gave that time exponent "–", which the note read as "fewer
    than three lengths"."""
    timed = variant(tmp_path, "profile-timed", {})
    untimed = {"status": lambda t: t["status"].where(t["encoder"] != "disan", "predicted")}
    other = variant(tmp_path, "profile-other", {"batch_size": 8, **untimed})
    html, _ = compare(tmp_path, [timed, other])
    rows = {tuple(row[:2]): row for row in cells(html, "growth")}
    for mode in ("infer", "train"):
        assert rows[("disan", mode)][5] == "nothing timed"  # encoder, mode, memory x2, time x2
        assert rows[("multi_cnn", mode)][5].startswith(("0.", "1.", "-"))
    assert '"nothing timed" where a run timed none of its points' in " ".join(html.split())


def test_an_encoder_measured_by_one_run_only_is_named_with_its_run() -> None:
    """Outside check 12: an encoder measured by one run only was left out of the ratio table
    without a word."""
    rows = pd.read_csv(PROFILE / "profile.csv").rename(columns={"encoder": "label"})
    encoders = sorted(set(rows["label"]))
    other = rows[rows["label"] != encoders[0]]
    said = compare_page.only_in(rows, other, ["base", "other"])
    assert said == [f"{encoders[0]} (only in base)"]
    assert compare_page.only_in(other, rows, ["a", "b"]) == [f"{encoders[0]} (only in b)"]
    assert compare_page.only_in(rows, rows, ["a", "b"]) == []


@pytest.mark.slow  # draws the comparison's figures
def test_the_page_says_which_encoder_one_run_alone_measured(tmp_path: Path) -> None:
    base = variant(tmp_path, "profile-a", {})
    other = variant(tmp_path, "profile-b", {"batch_size": 8})
    table = pd.read_csv(other / "profile.csv")
    dropped = sorted(set(table["encoder"]))[0]
    table[table["encoder"] != dropped].to_csv(other / "profile.csv", index=False)
    html, _ = compare(tmp_path, [base, other])
    assert "Not in this table (measured by one run only): " in html
    assert f"{dropped} (only in batch size 4)" in html


@pytest.mark.slow  # builds the comparison page (its figures made, not drawn): 2.7 s
@pytest.mark.usefixtures("figures_not_drawn")
def test_the_lead_names_every_recorded_setting_that_differs(tmp_path: Path) -> None:
    """Outside check 5 (issue 56): runs at commits db2f07c and 472d3cb, threads 2 and 1, read
    "They differ in threads (2 vs 1)" only; the page lists what differs."""
    a = variant(
        tmp_path,
        "profile-a",
        {"threads": 2},
        {"threads": "2", "commit": "db2f07c", "cpu_capability": "AVX512"},
    )
    b = variant(
        tmp_path,
        "profile-b",
        {},
        {"commit": "472d3cb", "torch": "2.12.0+cpu", "cpu_capability": "AVX2"},
    )
    html, _ = compare(tmp_path, [a, b])
    lead = html.split('class="lead"', 1)[1].split("</p>", 1)[0]
    assert "They differ in threads (2 vs 1), " in lead
    for said in (
        "commit (db2f07c vs 472d3cb)",
        "torch (2.13.0+cpu vs 2.12.0+cpu)",
        "ISA (AVX512 vs AVX2)",
    ):
        assert said in lead, lead
    assert "load average" not in lead  # measured while timing, not a setting of the run


def contended_rings(axes: object) -> list[tuple[float, float]]:
    """The points ``ring_contended`` drew on ``axes`` (hollow rings in ``RING``, no line)."""
    return [
        (float(x), float(y))
        for line in axes.get_lines()
        if line.get_markeredgecolor() == RING and line.get_markerfacecolor() == "none"
        for x, y in zip(*line.get_data(), strict=True)
    ]


def test_the_overlaid_time_figure_rings_contended_points(tmp_path: Path) -> None:
    """Outside check 5 (issue 56): the ratio figures ringed a contended time, the overlaid
    time-vs-length figures drew the same times bare."""
    quiet = load_run(variant(tmp_path, "profile-quiet", {"contended": False}))
    busy_folder = variant(
        tmp_path, "profile-busy", {"contended": lambda t: t.index % 2 == 0, "allocator": "glibc"}
    )
    busy = load_run(busy_folder)
    for mode in ("infer", "train"):
        points = busy.rows[(busy.rows["mode"] == mode) & (busy.rows["status"] == OK)]
        wanted = sorted(
            zip(
                points[points["contended"]]["seq_len"].astype(float),
                points[points["contended"]]["time_ms_median"].astype(float),
                strict=True,
            )
        )
        assert wanted  # the check has rings to find
        figure = compare_page.overlay_figure(
            [quiet, busy], ["quiet", "busy"], mode, "time_ms_median"
        )
        [axes] = [a for a in figure.axes if a.get_lines()]
        assert sorted(contended_rings(axes)) == wanted
        legend = [text.get_text() for text in axes.get_legend().get_texts()]
        assert any(text.startswith("contended") for text in legend), legend
        memory = compare_page.overlay_figure([quiet, busy], ["quiet", "busy"], mode, "peak_mem_mb")
        assert contended_rings(memory.axes[0]) == []  # memory is not a timing
        plt.close("all")


@pytest.mark.slow  # draws the comparison's figures
def test_the_lead_names_every_difference_the_environment_table_shows(tmp_path: Path) -> None:
    """fp32 vs the contended fixture: the table showed cpu_capability, compile and cpu_count
    differing (one run had not recorded them), the lead left them out (issue 56, check 6.5b)."""
    html, _ = compare(tmp_path, [PROFILE, PROFILE.parent / "profile-quick-contended"])
    lead = html.split('class="lead">', 1)[1].split("</p>", 1)[0]
    table = html.split('id="provenance"', 1)[1].split("</dl>", 1)[0]
    shown = re.findall(r"<dt>(.*?)</dt><dd>[^<]*\|", table)  # rows "name: value | name: value"
    assert "cpu_capability" in shown and "cpu_count" in shown, shown
    for key in (key for key in shown if key != compare_page.LOAD_KEY):  # a measurement
        named = compare_page.LABEL_KEYS.get(key) or key.replace("_", " ")
        assert f"{named} (" in lead, (key, lead)


def test_a_variant_is_drawn_in_its_own_shade_on_the_overlay(tmp_path: Path) -> None:
    """``disan`` and ``disan:attention_impl=naive`` were one colour on the overlay figures, whose
    line styles name the runs: a variant gets its own shade, in the legend too (issue 56,
    outside check 6 item 5c)."""
    naive = {  # bi_blosan's rows become disan:attention_impl=naive's (options set first)
        "options": lambda t: t["encoder"].map({"bi_blosan": "attention_impl=naive"}).fillna(""),
        "encoder": lambda t: t["encoder"].replace({"bi_blosan": "disan"}),
    }
    folder = variant(tmp_path, "variants", naive)
    figure = compare_page.overlay_figure([load_run(folder)], ["a"], "train", "time_ms_median")
    colours: dict[str, set] = {}
    for line in figure.axes[0].get_lines():
        if line.get_label() in ("disan", "disan:attention_impl=naive"):  # the legend's entries
            colours.setdefault(line.get_label(), set()).add(line.get_color())
    plt.close(figure)
    assert len(colours) == 2 and colours["disan"] != colours["disan:attention_impl=naive"], colours
