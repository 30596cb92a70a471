"""The profile report renders from a small fixture run folder (no harness, no encoders)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reports.paper_numbers import FIGURE_OPTIONS
from reports.profile.claims import MTSA_TABLE1_MB, papers_claims, ratio_agrees
from reports.profile.data import load_run
from reports.profile.growth import fit_loglog, growth_table
from reports.profile.tables import (
    longest_fitting,
    prediction_errors,
    ratios_to_reference,
    tile_costs,
)
from reports.site import build_profile_report

LENGTHS = (16, 32, 48, 64)
# 'quad' runs compiled attention tiles: 4x one pass's floor in inference, 2x three passes' in
# training
TILE_COST = {
    mode: {"attention_tiles": "compiled tiles of 16", "attention_floor_ns_per_pair": 0.5}
    | {"attention_ns_per_pair": ns}
    for mode, ns in (("infer", 2.0), ("train", 3.0))
}


def fixture_rows() -> pd.DataFrame:
    """'quad' grows as L^2 and runs out of memory at 64; 'lin' grows as L."""
    rows = []
    for mode in ("infer", "train"):
        for seq_len in LENGTHS:
            for encoder, power in (("quad", 2), ("lin", 1)):
                status = "oom" if (encoder, seq_len) == ("quad", 64) else "ok"
                value = float(seq_len**power) if status == "ok" else None
                rows.append(
                    {
                        "encoder": encoder,
                        "seq_len": seq_len,
                        "batch_size": 64,
                        "dim": 300,
                        "mode": mode,
                        "device": "cpu",
                        "dtype": "fp32",
                        "status": status,
                        "time_ms_median": value,
                        "time_ms_iqr": 0.1 if value else None,
                        "peak_mem_mb": value,
                        "params": 1000,
                        "peak_mem_mb_predicted": float(seq_len**power) * 1.02,
                        "noisy": (encoder, seq_len) == ("lin", 32),
                        "options": "",
                        "load_avg_before": 0.5,
                        "contended": (encoder, seq_len) == ("quad", 32),
                        "flops": 10**9,
                        "allocator": "jemalloc",
                        "torch": "2.x",
                        "commit": "abc123",
                        "message": "DefaultCPUAllocator: can't allocate memory"
                        if value is None
                        else "",
                        **(TILE_COST[mode] if encoder == "quad" and value else {}),
                    }
                )
    predicted = [
        {**rows[0], "seq_len": n, "status": "predicted", "time_ms_median": None}
        | {"time_ms_iqr": None, "peak_mem_mb": None, "peak_mem_mb_predicted": 1.02 * n**2}
        for n in (128, 256)
    ]
    predicted[-1]["predicted_leaves_out"] = "convolution: the inside memory is left out (why)"
    return pd.DataFrame(rows + predicted)


def loaded(rows: pd.DataFrame, folder: Path) -> pd.DataFrame:
    folder.mkdir(exist_ok=True)
    rows.to_csv(folder / "profile.csv", index=False)
    return load_run(folder).rows


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    rows = fixture_rows().replace({"encoder": {"lin": "multi_head"}})  # the papers' baseline
    rows.to_csv(tmp_path / "profile.csv", index=False)
    manifest = {
        "kind": "profile",
        "command": "sanbench profile --preset quick",
        "created": "2025-01-01T00:00:00+00:00",
        "environment": {"device_name": "TestCPU"},
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


@pytest.mark.slow
def test_report_renders_figures_tables_and_environment(run_dir: Path) -> None:
    page_path = build_profile_report(run_dir, f"sanbench report {run_dir} --out {run_dir}/report")
    page = page_path.read_text()
    folder = page_path.parent
    for stem in ("memory_infer", "time_infer", "memory_train", "time_train"):
        assert (folder / f"{stem}.png").stat().st_size > 1000
        assert (folder / f"{stem}.svg").exists()
        assert f'src="{stem}.png"' in page
    assert "TestCPU" in page and "jemalloc" in page and "sanbench profile --preset quick" in page
    assert "2 out of memory" in page and "2 predicted only" in page and "(2 noisy, " in page
    assert '<span class="bad">2 contended</span>' in page and 'id="contended"' in page
    assert "Longest length that fits, at batch 64</h2>" in page
    claims = page[page.index('id="claims"') : page.index('id="fits"')]
    assert claims.index(">verdict</th>") < claims.index(">claim</th>")  # never scrolled away
    growth = page[page.index('id="growth"') :]
    assert "memory k ± SE" in growth and "2.00 ± 0.00" in growth
    headings = ("The papers' claims beside ours", "Longest length that fits", "Predicted vs")
    assert all(heading in page for heading in headings)
    assert "Largest error 2.0%" in page and "load average" in page
    lower = "1 predictions leave out a kernel's inside memory"
    assert lower in page and "L=256\n(convolution: the inside memory is left out (why))" in page
    ratios = page[page.index('id="ratios"') : page.index('id="claims"')]
    assert "<td>16.00×</td>" in ratios and ">32.00× (contended)" in ratios  # quad at L=16, 32
    assert "predicted / measured" in ratios  # quad ran out of memory at 64
    tiles = page[page.index('id="tiles"') : page.index('id="ratios"')]
    assert tiles.count(">compiled tiles of 16</td>") == 6 and "<td>4.0×</td>" in tiles
    assert (run_dir / "report" / "index.html").exists()


def test_growth_table_fits_predicted_memory_and_measured_time(tmp_path: Path) -> None:
    table = growth_table(loaded(fixture_rows(), tmp_path)).set_index(["encoder", "mode"])
    quad = table.loc[("quad", "infer")]
    assert quad["memory_source"] == "predicted" and quad["memory_slope"] == pytest.approx(2)
    assert quad["memory_range"] == "64-256"  # upper half of 6 predicted lengths
    assert table.loc[("lin", "train"), "memory_slope"] == pytest.approx(1)
    assert table.loc[("lin", "infer"), "time_slope"] == pytest.approx(1)
    assert table["memory_reliable"].all() and table["time_reliable"].all()


def test_fits_with_low_r2_or_negative_slope_are_unreliable() -> None:
    lengths = np.array([16.0, 32.0, 64.0, 128.0])
    assert not fit_loglog(lengths, np.array([5.0, 4.0, 3.0, 2.0])).reliable  # negative slope
    eight = np.arange(1.0, 9.0) * 16  # the upper half: 4 points
    noisy = fit_loglog(eight, np.array([1, 1, 1, 1, 10.0, 30.0, 9.0, 31.0]))
    assert noisy.r2 < 0.9 and not noisy.reliable
    assert noisy.slope > 0 and fit_loglog(lengths, lengths**2).reliable


def test_fit_uses_upper_half_when_it_holds_three_lengths() -> None:
    lengths = pd.Series([16, 32, 64, 128, 256, 512]).to_numpy(float)
    fit = fit_loglog(lengths, 100 + lengths**2)  # a constant that the upper half outgrows
    assert fit is not None and fit.lengths == (128, 512) and 1.9 < fit.slope < 2.0
    four = fit_loglog(lengths[:4], lengths[:4] ** 2)  # the upper half would be two points
    assert four is not None and four.lengths == (16, 128) and four.points == 4


def test_growth_needs_three_lengths_and_gives_a_standard_error(tmp_path: Path) -> None:
    lengths = np.array([16.0, 32.0, 64.0])
    assert fit_loglog(lengths[:2], lengths[:2] ** 2) is None  # two points: R² 1 whatever k
    assert fit_loglog(np.array([16.0, 16.0, 32.0]), np.array([1.0, 2.0, 4.0])) is None
    exact = fit_loglog(lengths, lengths**2)
    assert exact.slope == pytest.approx(2) and exact.stderr == pytest.approx(0, abs=1e-9)
    noise = np.random.default_rng(0).lognormal(0, 0.2, 8)
    eight = np.arange(1.0, 9.0) * 64
    noisy = fit_loglog(eight[:3], eight[:3] ** 1.5 * noise[:3])
    assert noisy.stderr > 0.05 and abs(noisy.slope - 1.5) < 3 * noisy.stderr
    two = fixture_rows()
    two = two[(two["encoder"] == "lin") & (two["seq_len"] <= 32)].drop(
        columns="peak_mem_mb_predicted"
    )
    table = growth_table(loaded(two, tmp_path)).iloc[0]
    assert table["memory_range"] == "not enough lengths" and np.isnan(table["memory_slope"])
    assert table["time_range"] == "not enough lengths" and not table["time_reliable"]


def test_prediction_errors_and_longest_fitting_length(tmp_path: Path) -> None:
    rows = loaded(fixture_rows(), tmp_path)
    errors = prediction_errors(rows)
    assert len(errors) == 14 and errors["error_pct"].round(6).eq(2.0).all()
    assert not errors["eager"].any()
    # a compiled run: the eager prediction is compared with the point measured uncompiled
    compiled = rows.assign(eager_peak_mem_mb=rows["peak_mem_mb_predicted"])
    compiled["peak_mem_mb"] /= 2  # what the compiled graph held: measured only
    errors = prediction_errors(compiled)
    assert errors["eager"].all() and errors["error_pct"].abs().max() < 1e-9
    budgets = {(r["encoder"], r["mode"]): r for r in longest_fitting(rows)}
    # quad infer predicted: 1.02 L^2 MB; 16 GB = 16384 MB < 1.02 * 128^2, so L = 64
    assert budgets[("quad", "infer")]["16 GB"] == "64"
    assert budgets[("quad", "infer")]["80 GB"] == "≥ 256"
    assert budgets[("lin", "train")]["16 GB"] == "≥ 64"
    tiny = rows.assign(peak_mem_mb_predicted=1e9)
    assert longest_fitting(tiny)[0]["24 GB"] == "< 16"


def test_tile_costs_set_the_tiles_beside_the_floor_of_the_steps_passes(tmp_path: Path) -> None:
    table = tile_costs(loaded(fixture_rows(), tmp_path)).set_index(["mode", "seq_len"])
    assert list(table["label"].unique()) == ["quad"]  # measured rows whose tiles were timed
    assert sorted(table.index) == [(m, n) for m in ("infer", "train") for n in (16, 32, 48)]
    assert set(table.loc["infer", "passes"]) == {1} and set(table.loc["train", "passes"]) == {3}
    assert set(table.loc["infer", "times_floor"]) == {4.0}  # 2.0 ns against 1 x 0.5
    assert set(table.loc["train", "times_floor"]) == {2.0}  # 3.0 ns against 3 x 0.5


def test_ratios_to_the_reference_take_the_prediction_only_where_nothing_was_measured(
    tmp_path: Path,
) -> None:
    rows = loaded(fixture_rows(), tmp_path)
    table = ratios_to_reference(rows, reference="lin").set_index(["mode", "seq_len"])
    assert set(table["label"]) == {"quad"} and len(table) == 8
    train = table.loc["train"]
    assert train.loc[16, "memory_ratio"] == 16.0 and train.loc[16, "time_ratio"] == 16.0
    assert train.loc[16, "memory_basis"] == "measured" and not train.loc[16, "contended"]
    assert train.loc[32, "contended"]  # quad's timing at 32 did not get its CPU
    # quad ran out of memory at 64: its predicted 1.02 * 64^2 MB over lin's measured 64 MB
    assert train.loc[64, "memory_basis"] == "predicted"
    assert train.loc[64, "memory_ratio"] == pytest.approx(1.02 * 64)
    assert np.isnan(train.loc[64, "time_ratio"])
    assert ratios_to_reference(rows).empty  # no multi_head in this run


def claim_rows(tmp_path: Path, memory: dict[str, float], slopes: dict[str, float]) -> pd.DataFrame:
    rows = []
    for encoder, at64 in memory.items():
        for seq_len in (64, 128, 256, 384):
            value = at64 * (seq_len / 64) ** slopes.get(encoder, 1.0)
            status = "ok" if seq_len == 64 else "predicted"
            rows.append(
                {
                    **fixture_rows().iloc[0].to_dict(),
                    "encoder": encoder,
                    "options": FIGURE_OPTIONS.get(encoder, ""),
                    "mode": "train",
                    "seq_len": seq_len,
                    "status": status,
                    "peak_mem_mb": value if status == "ok" else None,
                    "peak_mem_mb_predicted": value,
                }
            )
    return loaded(pd.DataFrame(rows), tmp_path)


def test_papers_claims_compare_ratios_and_exponents(tmp_path: Path) -> None:
    # ours: the paper's MB except Bi-LSTM 5x too large; DiSAN quadratic, Bi-BloSAN linear
    memory = {name: float(mb) for name, mb in MTSA_TABLE1_MB.items()} | {"bilstm": 4710.0}
    rows = claim_rows(tmp_path, memory, {"disan": 2.0, "bi_blosan": 1.0})
    claims = {c.claim: c for c in papers_claims(rows)}
    disan = claims["disan uses 6682 MB vs MTSA's 558 MB"]
    assert disan.paper == "11.97×" and disan.ours == "11.97×" and disan.verdict == "agree"
    assert "measured" in disan.basis
    assert claims["bilstm uses 942 MB vs MTSA's 558 MB"].verdict == "disagree"
    assert claims["bigru uses 810 MB vs MTSA's 558 MB"].verdict == "agree"
    growth = {c.claim.split()[0]: c for c in papers_claims(rows) if c.paper.startswith("≈")}
    assert growth["disan"].ours == "2.00 ± 0.00" and growth["disan"].verdict == "agree"
    assert growth["bi_blosan"].ours == "1.00 ± 0.00" and growth["bi_blosan"].verdict == "agree"
    ordering = claims["Bi-BloSAN is more memory-efficient than DiSAN"]
    assert ordering.verdict == "agree" and "L=384" in ordering.basis
    assert "predicted" in ordering.basis
    assert claims["Bi-BloSAN consumes more memory than the RNNs (Bi-LSTM)"].verdict == "disagree"
    assert ratio_agrees(1.5, 1.0) and not ratio_agrees(0.9, 1.1) and not ratio_agrees(3, 1)


def test_claims_without_the_encoders_say_not_measured(tmp_path: Path) -> None:
    rows = loaded(fixture_rows(), tmp_path)
    assert {c.verdict for c in papers_claims(rows)} == {"not measured"}


def test_claims_read_disan_as_the_papers_ran_it_not_our_default(tmp_path: Path) -> None:
    """DiSAN's claims are about its whole [B, L, L, d] attention: rows of the default (chunked)
    DiSAN are not evidence for or against them, and the verdict says so (outside check C of
    #56, item 13: it read "not measured" beside DiSAN measured at L = 8 and 16)."""
    memory = {name: float(mb) for name, mb in MTSA_TABLE1_MB.items()}
    rows = claim_rows(tmp_path, memory, {"disan": 2.0})
    rows = rows.assign(label=rows["encoder"])  # every row under its plain name
    claims = {c.claim: c for c in papers_claims(rows)}
    table = claims["disan uses 6682 MB vs MTSA's 558 MB"]
    growth = claims["disan training memory grows explosively (quadratic: [B, L, L, d] scores)"]
    for claim in (table, growth):
        assert (claim.verdict, claim.ours) == ("not at attention_impl=naive", "–")
        assert claim.basis == (
            "this run trained disan at L=64, 128, 256, 384; "
            "the papers' figures ran disan:attention_impl=naive"
        )
    without = papers_claims(rows[rows["encoder"] != "multi_head"])
    ordering = next(c for c in without if c.claim.endswith("less memory than DiSAN"))
    assert ordering.verdict == "not measured"  # multi_head not at all
    assert ordering.basis.startswith("no training rows of multi_head in this run; this run trained")


def test_bad_run_folder_gives_clear_errors(tmp_path: Path, capsys) -> None:
    from harness.cli import main

    assert main(["report", str(tmp_path), "--out", str(tmp_path / "site")]) == 2
    assert "no manifest.json" in capsys.readouterr().err
    pd.DataFrame({"encoder": ["x"], "seq_len": [8]}).to_csv(tmp_path / "profile.csv", index=False)
    with pytest.raises(ValueError, match=r"line 1: header lacks columns \['batch_size'"):
        load_run(tmp_path)


def test_the_machine_is_read_from_the_manifest_alone() -> None:
    """Issue 56 (H11.5): ``report`` across machines took the device name from profile.csv's
    rows over the run's manifest; the rows fill only what the manifest lacks."""
    from reports.profile.data import ProfileRun, environment

    rows = pd.DataFrame(
        {"device_name": ["x86_64"], "dtype": ["bf16"], "threads": [4], "load_avg_before": [0.5],
         "load_avg_after": [0.7]}
    )  # fmt: skip
    manifest = {"environment": {"device_name": "AMD EPYC 7B13", "threads": "2", "torch": "2.13"}}
    env = environment(ProfileRun(Path("run"), rows, manifest))
    assert (env["device_name"], env["threads"], env["torch"]) == ("AMD EPYC 7B13", "2", "2.13")
    assert env["dtype"] == "bf16"  # no manifest key: the rows'
    assert environment(ProfileRun(Path("run"), rows, {}))["device_name"] == "x86_64"
