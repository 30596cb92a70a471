"""The profile report renders from a small fixture run folder (no harness, no encoders)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from reports.profile import build_report
from reports.profile.__main__ import main
from reports.profile.growth import fit_loglog, growth_table

LENGTHS = (16, 32, 48, 64)


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
                        "flops": 10**9,
                        "allocator": "jemalloc",
                        "torch": "2.x",
                        "commit": "abc123",
                        "message": "DefaultCPUAllocator: can't allocate memory"
                        if value is None
                        else "",
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    fixture_rows().to_csv(tmp_path / "profile.csv", index=False)
    manifest = {
        "kind": "profile",
        "command": "sanbench profile --preset quick",
        "created": "2025-01-01T00:00:00+00:00",
        "environment": {"device_name": "TestCPU"},
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def test_report_renders_figures_table_and_environment(run_dir: Path) -> None:
    index = build_report(run_dir)
    page = index.read_text()
    for stem in ("memory_infer", "time_infer", "memory_train", "time_train"):
        assert (run_dir / f"{stem}.png").stat().st_size > 1000
        assert (run_dir / f"{stem}.svg").exists()
        assert f'src="{stem}.png"' in page
    assert "TestCPU" in page and "jemalloc" in page and "sanbench profile --preset quick" in page
    assert "2 out of memory" in page


def test_growth_table_recovers_synthetic_exponents() -> None:
    table = growth_table(fixture_rows()).set_index(["encoder", "mode"])
    assert table.loc[("quad", "train"), "memory_slope"] == pytest.approx(2)
    assert table.loc[("quad", "train"), "memory_range"] == "16-48"  # fewer than 4: all points
    assert table.loc[("lin", "infer"), "time_slope"] == pytest.approx(1)
    assert table.loc[("lin", "infer"), "memory_r2"] == pytest.approx(1)
    assert table.loc[("lin", "infer"), "memory_range"] == "48-64"  # upper half of 4 lengths


def test_fit_uses_upper_half_and_needs_two_points() -> None:
    lengths = pd.Series([16, 32, 64, 128]).to_numpy(float)
    fit = fit_loglog(lengths, 100 + lengths**2)  # a constant that the upper half outgrows
    assert fit is not None and fit.lengths == (64, 128) and 1.8 < fit.slope < 2.0
    assert fit_loglog(lengths[:1], lengths[:1]) is None


def test_bad_run_folder_gives_clear_errors(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path)]) == 2
    assert "profile.csv not found" in capsys.readouterr().err
    pd.DataFrame({"encoder": ["x"], "seq_len": [8]}).to_csv(tmp_path / "profile.csv", index=False)
    with pytest.raises(ValueError, match=r"line 1: header lacks columns \['batch_size'"):
        build_report(tmp_path)


def test_main_prints_index_path(run_dir: Path, capsys) -> None:
    assert main([str(run_dir)]) == 0
    assert capsys.readouterr().out.strip().endswith("index.html")
