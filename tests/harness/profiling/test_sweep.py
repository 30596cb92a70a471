"""End-to-end profiling sweeps on CPU with the test workloads of ``profiling_workloads``.

Each sweep starts worker processes (torch import, a few seconds each), so grids stay tiny.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from encoders.layers import compiled_tiles
from harness.cli import main
from harness.measurement.profiled_step import Point
from harness.profiling.grid import EncoderSpec
from harness.profiling.sweep import make_row
from harness.profiling.sweep_config import SweepConfig
from reports.contracts.profile_run import COLUMNS, KEY_COLUMNS
from reports.contracts.profile_run import ENVIRONMENT_COLUMNS as ENV_COLUMNS
from reports.contracts.results_file import ResultsFile
from reports.paper_numbers import FIGURE_ENCODERS, figure_label
from reports.profile.data import load_run
from reports.profile.growth import growth_table
from tests.harness.fixtures import warm_commands

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
WORKLOADS = ["--import", "tests.harness.fixtures.profiling_workloads"]
SMALL = ["--batch-size", "4", "--dim", "32", "--repeats", "3", "--no-progress", "--no-report"]


@pytest.fixture(autouse=True)
def _in_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # workers import the test workloads with `python -m`
    monkeypatch.setenv("OMP_NUM_THREADS", "1")


def profile(out: Path, *options: str) -> int:
    return main(["profile", *WORKLOADS, *SMALL, "--out", str(out), *options])


def read(out: Path) -> pd.DataFrame:
    return load_run(out).rows


def killed_after_three_rows(out: Path, options: list[str]) -> list[str]:
    """``sanbench profile`` in a process of its own, killed with SIGKILL once its CSV holds
    three rows: the CSV's whole lines at the kill."""
    command = [sys.executable, "-m", "harness.cli", "profile", *WORKLOADS, *SMALL, *options]
    sweep = warm_commands.Popen(
        [*command, "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    csv_path = out / "profile.csv"
    deadline = time.monotonic() + 600  # a loaded 2-core machine may take minutes to start
    while time.monotonic() < deadline:
        if csv_path.exists() and csv_path.read_text().count("\n") >= 4:  # header + 3 rows
            break
        time.sleep(0.05)
    os.kill(sweep.pid, signal.SIGKILL)
    sweep.wait()
    return [line for line in csv_path.read_text().splitlines(keepends=True) if line[-1] == "\n"]


@pytest.fixture(scope="module")
def killed_and_resumed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The sweep of test_quadratic and test_linear at L = 64-512 that the schema, growth and
    eager tests read, finished as a user finishes a killed one: killed after its third row,
    then resumed (one sweep for four tests). With the CSV's lines at the kill."""
    out = tmp_path_factory.mktemp("sweep")
    options = ["--encoders", "test_quadratic,test_linear", "--lengths", "64,128,256,512"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        patch.setenv("OMP_NUM_THREADS", "1")
        before = killed_after_three_rows(out, options)
        assert profile(out, *options, "--resume") == 0
    return out, before


@pytest.fixture(scope="module")
def sweep(killed_and_resumed: tuple[Path, list[str]]) -> Path:
    return killed_and_resumed[0]


@pytest.fixture(scope="module")
def linear_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """test_linear at L = 16 and 32, in a folder whose name holds a space: the sweep the resume
    tests continue or contradict, each in its own copy (one sweep for three tests)."""
    out = tmp_path_factory.mktemp("linear") / "my sweep"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        patch.setenv("OMP_NUM_THREADS", "1")
        assert profile(out, "--encoders", "test_linear", "--lengths", "16,32") == 0
    return out


def copy_of(sweep: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(sweep, tmp_path / sweep.name))


def test_csv_schema_and_manifest(sweep: Path) -> None:
    with (sweep / "profile.csv").open() as handle:
        header = next(csv.reader(handle))
    assert tuple(header) == COLUMNS
    rows = read(sweep)
    assert len(rows) == 2 * 4 * 2 and set(rows["status"]) == {"ok"}
    assert not rows.duplicated(list(KEY_COLUMNS)).any()
    assert (rows["device"] == "cpu").all() and (rows["dtype"] == "fp32").all()
    assert (rows["time_ms_median"] > 0).all() and (rows["time_ms_iqr"] >= 0).all()
    assert (rows["peak_mem_mb"] > 0).all() and (rows["peak_rss_mb"] > rows["peak_mem_mb"]).all()
    assert (rows["params"] == 32 * 32 + 32).all()
    quadratic = rows[(rows["encoder"] == "test_quadratic") & (rows["mode"] == "infer")]
    assert (quadratic["flops"] > 0).all() and (quadratic["tflops"] > 0).all()
    assert rows["allocator"].nunique() == 1 and rows["threads"].eq(1).all()
    manifest = json.loads((sweep / "manifest.json").read_text())
    assert manifest["kind"] == "profile" and " && sanbench profile" in manifest["command"]
    assert manifest["environment"]["allocator"] == rows["allocator"].iloc[0]


def test_growth_exponents_of_known_workloads_are_recovered(sweep: Path) -> None:
    rows = read(sweep)
    table = growth_table(rows).set_index(["encoder", "mode"])
    for mode in ("infer", "train"):
        assert table.loc[("test_quadratic", mode), "memory_slope"] == pytest.approx(2, abs=0.1)
        assert table.loc[("test_linear", mode), "memory_slope"] == pytest.approx(1, abs=0.1)
        # Timings on a shared 2-core VM can be off by 2-3x from one length to the next, so the
        # time exponent is checked end to end (L = 64 -> 512, a factor 64 for L^2 work).
        quadratic = rows[(rows["encoder"] == "test_quadratic") & (rows["mode"] == mode)]
        times = quadratic.set_index("seq_len")["time_ms_median"]
        assert np.log(times[512] / times[64]) / np.log(8) > 1.3


def without_predictions(patch: pytest.MonkeyPatch) -> None:
    """The sweep's predictions all fail, as they do for a model the meta device cannot run:
    its points are attempted whatever their size."""
    from harness.profiling import sweep

    def failed(points, *args):  # a generator, as predict_points is
        for point in points:
            yield point, "no prediction (test)"

    patch.setattr(sweep, "predict_points", failed)


def test_a_point_predicted_over_the_budget_is_not_attempted(tmp_path: Path, capsys) -> None:
    """[4, L, L, 32] floats: 34 MB at L = 256 alone, over a 24 MB budget: its row says why, with
    both figures, on a whole console line, and the worker never allocates it."""
    options = ("--encoders", "test_quadratic", "--lengths", "64,256,512", "--modes", "infer")
    assert profile(tmp_path, *options, "--max-memory-mb", "24") == 0
    rows = read(tmp_path).set_index("seq_len")
    assert list(rows["status"]) == ["ok", "skipped_oom", "skipped_oom"]
    message = rows.loc[256, "message"]
    predicted = rows.loc[256, "peak_mem_mb_predicted"]
    assert f"{predicted:,.0f} MB" in message and "24 MB budget" in message
    assert message in capsys.readouterr().out
    assert "allocate" not in (tmp_path / "worker.log").read_text()


def test_forced_oom_is_recorded_and_the_sweep_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_predictions(monkeypatch)
    lengths = "32,64,256,384,512"  # [4, L, L, 32] floats: 0.5 MB at 64, 34 MB at 256
    encoders = "test_quadratic,test_linear"
    assert (
        profile(
            tmp_path,
            "--encoders",
            encoders,
            "--lengths",
            lengths,
            "--modes",
            "infer",
            "--max-memory-mb",
            "24",
        )
        == 0
    )
    rows = read(tmp_path).set_index(["encoder", "seq_len"])["status"]
    assert list(rows["test_quadratic"]) == ["ok", "ok", "oom", "skipped_oom", "skipped_oom"]
    assert list(rows["test_linear"]) == ["ok"] * 5
    messages = read(tmp_path).set_index(["encoder", "seq_len"])["message"]
    assert "allocate" in messages[("test_quadratic", 256)]
    assert "L=256" in messages[("test_quadratic", 384)]


def test_no_skip_after_oom_tries_every_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    without_predictions(monkeypatch)
    assert (
        profile(
            tmp_path,
            "--encoders",
            "test_quadratic",
            "--lengths",
            "256,384",
            "--modes",
            "infer",
            "--max-memory-mb",
            "24",
            "--no-skip-after-oom",
        )
        == 0
    )
    assert list(read(tmp_path)["status"]) == ["oom", "oom"]


def test_kill_and_resume_loses_and_duplicates_nothing(
    killed_and_resumed: tuple[Path, list[str]],
) -> None:
    out, before = killed_and_resumed
    assert 4 <= len(before) < 1 + 16, "the sweep should have been killed mid-way"
    after = (out / "profile.csv").read_text().splitlines(keepends=True)
    assert after[: len(before)] == before
    rows = read(out)
    assert len(rows) == 2 * 4 * 2 and not rows.duplicated(list(KEY_COLUMNS)).any()
    assert set(rows["status"]) == {"ok"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(manifest["resumed"]) == 1


def test_resume_continues_the_recorded_sweep_and_refuses_another(
    linear_sweep: Path, tmp_path: Path, capsys
) -> None:
    """``--resume --out X`` alone (as the Ctrl-C message prints it) continues the sweep X's
    manifest records; an option that contradicts the record, or another sweep without
    --resume, is refused with status 2 and nothing written (on e81e6e0 the bare resume
    profiled the paper preset's encoders into the same CSV and overwrote the manifest)."""
    tmp_path = copy_of(linear_sweep, tmp_path)  # test_linear at L = 16, 32
    csv_path, manifest_path = tmp_path / "profile.csv", tmp_path / "manifest.json"
    full = csv_path.read_text().splitlines(keepends=True)
    csv_path.write_text("".join(full[:-1]))  # the last point lost, as a Ctrl-C loses it
    recorded = json.loads(manifest_path.read_text())
    bare = ["profile", *WORKLOADS, "--resume", "--out", str(tmp_path), "--no-progress"]
    assert main([*bare, "--no-report"]) == 0
    rows = read(tmp_path)
    assert len(rows) == len(full) - 1 and set(rows["encoder"]) == {"test_linear"}
    assert sorted(rows["seq_len"].unique()) == [16, 32] and set(rows["batch_size"]) == {4}
    manifest = json.loads(manifest_path.read_text())
    assert manifest["command"] == recorded["command"] and manifest["options"] == recorded["options"]
    assert len(manifest["resume_commands"]) == 1
    capsys.readouterr()
    before = (csv_path.read_text(), manifest_path.read_text())
    for contradiction in (["--encoders", "test_quadratic"], ["--preset", "quick"]):
        assert main([*bare, *contradiction]) == 2
        err = capsys.readouterr().err
        assert contradiction[0] in err and "recorded" in err
        assert (csv_path.read_text(), manifest_path.read_text()) == before
    assert profile(tmp_path, "--encoders", "test_quadratic", "--lengths", "16") == 2
    assert "--resume" in capsys.readouterr().err
    assert (csv_path.read_text(), manifest_path.read_text()) == before


def test_a_resume_of_a_sweep_recorded_without_its_options_must_make_the_same_sweep(
    linear_sweep: Path, tmp_path: Path, capsys
) -> None:
    """A manifest written before sanbench recorded the options: the resumed sweep is checked
    against the recorded one, key by key, before any point is written."""
    tmp_path = copy_of(linear_sweep, tmp_path)  # test_linear at L = 16, 32
    manifest_path = tmp_path / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["options"]
    manifest_path.write_text(json.dumps(manifest))
    before = (tmp_path / "profile.csv").read_text()
    capsys.readouterr()
    assert profile(tmp_path, "--encoders", "test_linear", "--lengths", "16", "--resume") == 2
    err = capsys.readouterr().err
    assert "holds another sweep" in err and "lengths: [16, 32] recorded, [16] now" in err
    assert (tmp_path / "profile.csv").read_text() == before
    assert profile(tmp_path, "--encoders", "test_linear", "--lengths", "16,32", "--resume") == 0


def test_existing_run_needs_resume_and_same_allocator(tmp_path: Path, capsys) -> None:
    config = SweepConfig(
        (EncoderSpec("test_linear"),),
        (8,),
        ("infer",),
        4,
        32,
        "cpu",
        "fp32",
        3,
        None,
        "jemalloc",
        None,
    )
    env = dict.fromkeys(ENV_COLUMNS, "x")
    row = make_row(
        Point("test_linear", 8, "infer", 4, 32),
        config,
        {**env, "allocator": "jemalloc"},
        {"status": "ok"},
        None,
    )
    ResultsFile(tmp_path / "profile.csv", KEY_COLUMNS).append(row)
    assert profile(tmp_path, "--encoders", "test_linear", "--lengths", "8") == 2
    assert "--resume" in capsys.readouterr().err
    code = profile(
        tmp_path,
        "--encoders",
        "test_linear",
        "--lengths",
        "8,16",
        "--resume",
        "--allocator",
        "glibc",
    )
    assert code == 2 and "one profile.csv holds one comparison" in capsys.readouterr().err
    assert len(read(tmp_path)) == 1


def test_a_prediction_that_leaves_a_kernel_out_says_so_in_its_row_and_line() -> None:
    from harness.memory_prediction.step import Prediction
    from harness.profiling.sweep import describe

    config = SweepConfig(
        (EncoderSpec("bilstm"),), (), ("train",), 4, 300, "cpu", "fp32", 3, None, "glibc", None
    )
    why = "mkldnn_rnn_layer: the inside memory is left out (a calibration call's arguments exceed)"
    prediction = Prediction(2**30, 10, 5, 1.0, (why,))
    row = make_row(
        Point("bilstm", 512, "train", 4096, 300),
        config,
        dict.fromkeys(ENV_COLUMNS, "x"),
        {"status": "predicted"},
        prediction,
    )
    assert row["predicted_leaves_out"] == why and row["peak_mem_mb_predicted"] == 1024
    assert f"1024.0 MB predicted (a lower bound: {why})" in describe(row)
    exact = make_row(
        Point("bilstm", 16, "train", 4, 300),
        config,
        dict.fromkeys(ENV_COLUMNS, "x"),
        {"status": "predicted"},
        Prediction(2**20, 10, 5, 1.0),
    )
    assert exact["predicted_leaves_out"] == "" and "lower bound" not in describe(exact)


def test_variants_side_by_side_and_predict_only(tmp_path: Path) -> None:
    """Variants of one encoder side by side, and lengths only predicted, in one sweep (its
    predictions in one pool; ``--predict-only`` alone: the papers' longest length below)."""
    encoders = "test_linear,test_linear:hidden_dim=16,test_quadratic"
    options = ["--encoders", encoders, "--lengths", "8", "--modes", "train"]
    assert profile(tmp_path, *options, "--predict-lengths", "8,64,512,4096") == 0
    rows = read(tmp_path).set_index(["label", "seq_len"])
    labels = {"test_linear", "test_linear:hidden_dim=16", "test_quadratic"}
    assert set(rows.index.get_level_values("label")) == labels
    assert rows.loc[("test_linear", 8), "status"] == "ok"
    assert rows.loc[("test_linear", 512), "status"] == "predicted"
    assert rows.loc[("test_linear:hidden_dim=16", 8), "params"] == 32 * 16 + 16
    measured = rows.loc[("test_linear", 8)]
    error = measured["peak_mem_mb_predicted"] / measured["peak_mem_mb"] - 1
    assert abs(error) < 0.05
    assert (rows["cpu_count"] >= 1).all()
    measured = rows[rows["status"] == "ok"]
    assert measured["load_avg_before"].notna().all() and measured["cpu_share"].notna().all()
    row = rows.loc[("test_quadratic", 4096)]
    # [4, 4096, 4096, 32] fp32 pairwise tensor alone: 8 GiB, predicted without allocating it
    assert row["status"] == "predicted" and row["peak_mem_mb_predicted"] > 8 * 1024


def test_disan_chunked_attention_beside_naive_as_a_profile_variant(tmp_path: Path) -> None:
    # naive vs chunked attention is a profile variant (nox -s bench runs it at the paper's shape)
    naive, chunked = "disan:attention_impl=naive", "disan:attention_impl=chunked:chunk_size=2"
    options = ["--encoders", f"{naive},{chunked}", "--lengths", "16,32", "--modes", "train"]
    assert profile(tmp_path, *options) == 0
    rows = read(tmp_path).set_index(["label", "seq_len"])
    assert (rows["status"] == "ok").all() and len(rows) == 4
    peak = rows["peak_mem_mb"]
    assert (peak.loc[chunked] < peak.loc[naive]).all()
    # the exact tensor accounting: the meta-tensor prediction is the measured peak
    assert ((rows["peak_mem_mb_predicted"] / peak - 1).abs() < 0.05).all()
    # each row says which tiles ran: compiled where this machine compiles them
    # (test_compiled_tiles.py), eager elsewhere and for the first tile of DiSAN's forward mask and
    # the last of its backward one (one key each: 4 of 256 pairs at L = 16, 4 of 1024 at 32)
    compiled = compiled_tiles.available("cpu")
    ran = {
        16: "compiled tiles of 2 (98.4% of pairs), eager tiles of 2 (1.56%)",
        32: "compiled tiles of 2 (99.6% of pairs), eager tiles of 2 (0.391%)",
    }
    expected = ran if compiled else dict.fromkeys(ran, "eager tiles of 2")
    assert rows["attention_tiles"].loc[chunked].to_dict() == expected
    assert set(rows["attention_tiles"].loc[naive]) == {""}
    # and the compiled tiles' time per attended (query, key, feature) beside this CPU's floor
    cost = rows[["attention_ns_per_pair", "attention_floor_ns_per_pair"]]
    assert cost.loc[naive].isna().all().all()
    assert (cost.loc[chunked] > 0).all().all() if compiled else cost.loc[chunked].isna().all().all()


def test_predict_only_at_the_papers_longest_length_covers_every_figure_encoder(
    tmp_path: Path,
) -> None:
    # the papers' shape [64, 384, 300]; how long this takes is measured by `nox -s bench`
    options = ["--predict-only", "--predict-lengths", "384", "--no-progress", "--no-report"]
    assert main(["profile", *options, "--out", str(tmp_path)]) == 0
    rows = read(tmp_path).set_index(["label", "mode"])
    assert set(rows.index) == {(e, m) for e in FIGURE_ENCODERS for m in ("infer", "train")}
    assert (rows["status"] == "predicted").all() and (rows["seq_len"] == 384).all()
    assert (rows["peak_mem_mb_predicted"] > 0).all() and (rows["flops"] > 0).all()
    train = rows.xs("train", level="mode")["peak_mem_mb_predicted"]
    # the papers' DiSAN: four [64, 300, 384, 384] fp32 tensors alone are 42 GiB; Bi-BloSAN: "far
    # less" (ICLR 2018)
    disan, bi_blosan = train[figure_label("disan")], train[figure_label("bi_blosan")]
    assert disan > 4 * 64 * 300 * 384**2 * 4 / 2**20
    assert bi_blosan < disan / 10


def test_compiled_encoders_time_the_first_call_apart_and_say_what_compiling_bought(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ["--encoders", "test_linear", "--lengths", "8", "--modes", "infer", "--compile"]
    assert profile(tmp_path, *options) == 0
    (row,) = read(tmp_path).to_dict("records")
    assert row["status"] == "ok" and str(row["compile"]) == "True"
    assert row["compile_s"] > 0 and row["time_ms_median"] > 0
    # the same point uncompiled, same weights: the row says what compiling bought
    assert row["eager_time_ms_median"] > 0 and row["eager_peak_mem_mb"] > 0
    speedup = row["eager_time_ms_median"] / row["time_ms_median"]
    assert f"compiled: {speedup:.2f}x eager's speed" in capsys.readouterr().out
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "report")]) == 0
    pages = [p.read_text() for p in (tmp_path / "report").rglob("index.html")]
    assert any("What compiling bought" in page for page in pages)


def test_an_eager_run_has_no_compile_comparison(sweep: Path) -> None:
    rows = read(sweep)
    assert len(rows) and set(rows["compile"].astype(str)) == {"False"}
    assert rows["eager_time_ms_median"].isna().all() and rows["eager_peak_mem_mb"].isna().all()


def test_compiled_and_eager_outputs_agree() -> None:
    import torch

    from encoders import build_encoder

    torch.manual_seed(0)
    model = build_encoder("mtsa", input_dim=16).eval()
    x = torch.randn(2, 7, 16)
    mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])
    with torch.no_grad():
        eager = model(x, mask).pooled
        compiled = torch.compile(model)(x, mask).pooled
    torch.testing.assert_close(compiled, eager, atol=1e-5, rtol=1e-5)


def test_launcher_local_runs_a_job_per_encoder_and_merges_without_duplicates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    options = ["--encoders", "test_linear,test_quadratic", "--lengths", "8,16", "--modes", "infer"]
    assert profile(tmp_path, *options, "--launcher", "local") == 0
    rows = read(tmp_path)
    assert len(rows) == 2 * 2 and not rows.duplicated(list(KEY_COLUMNS)).any()
    assert set(rows["status"]) == {"ok"}
    for label in ("test_linear", "test_quadratic"):
        assert len(read(tmp_path / "jobs" / label)) == 2  # each job's own resumable CSV
    job_rows = (tmp_path / "jobs" / "test_linear" / "profile.csv").read_text()
    assert profile(tmp_path, *options, "--launcher", "local", "--resume") == 0  # nothing new
    assert len(read(tmp_path)) == 4
    assert (tmp_path / "jobs" / "test_linear" / "profile.csv").read_text() == job_rows


def test_a_cpu_sweep_without_a_budget_takes_a_share_of_the_machines_available_memory() -> None:
    """H18.2: the budget reads ``harness.measurement.machine_memory`` (was ``process_memory``)."""
    from harness.measurement.machine_memory import physical_bytes
    from harness.measurement.tensor_memory import MB
    from harness.profiling.sweep import on_this_machine

    config = SweepConfig(
        (EncoderSpec("test_linear"),), (8,), ("infer",), 2, 8, "cpu", "fp32", 3, None, "glibc", None
    )
    budget = on_this_machine(config).max_memory_mb
    assert budget is not None and 0 < budget <= physical_bytes() / MB


def test_the_resume_command_printed_for_other_options_runs_as_typed(
    linear_sweep: Path, tmp_path: Path, capsys
) -> None:
    """Outside check 14: a folder with a space was printed unquoted in the resume command."""
    import shlex

    out = copy_of(linear_sweep, tmp_path)  # "my sweep": test_linear at L = 16, 32
    assert " " in out.name
    capsys.readouterr()
    assert profile(out, "--encoders", "test_linear", "--lengths", "16", "--resume") == 2
    said = capsys.readouterr().err.partition("drop these options (")[2].partition(")")[0]
    assert shlex.split(said) == ["sanbench", "profile", "--resume", "--out", str(out)], said


def test_a_failed_prediction_of_a_measured_point_is_named_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Its line named the point as a Python repr (``Point(encoder='b54_conv9', ...)``)."""
    without_predictions(monkeypatch)
    assert (
        profile(tmp_path, "--encoders", "test_linear", "--lengths", "32", "--modes", "infer") == 0
    )
    out = capsys.readouterr().out
    assert "Point(" not in out
    assert "test_linear L=32 infer at [" in out and "no prediction (test)" in out


def test_a_sweep_not_in_fp32_says_it_predicts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check b56e of #56, item 9: a bf16 sweep's first line said ``L=8,16 predicted``,
    and its rows gave no prediction (predictions are of fp32 steps)."""
    assert profile(tmp_path, "--encoders", "test_linear", "--lengths", "8", "--dtype", "bf16") == 0
    first = capsys.readouterr().out.splitlines()[0]
    said = "L=8 measured, no memory predicted (predictions are of fp32 steps; these are bf16) ->"
    assert said in first and " predicted ->" not in first, first
    assert read(tmp_path)["peak_mem_mb_predicted"].isna().all()


def test_the_first_line_says_the_lengths_as_spelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check b56c of #56, item 9: ``--predict-lengths 16:4096:16`` was said as
    ``L=[16, 32, 48, ..., 4096] predicted``, 256 numbers."""
    argv = ["profile", "--predict-only", "--encoders", "bilstm", "--modes", "infer"]
    argv += ["--dim", "8", "--batch-size", "2", "--predict-lengths", "16:64:16,100"]
    assert main([*argv, "--no-report", "--no-progress", "--out", str(tmp_path / "p")]) == 0
    assert "no lengths measured, L=16:64:16,100 predicted ->" in capsys.readouterr().out


@pytest.mark.parametrize("option", ["--lengths", "--predict-lengths"])
def test_the_first_line_says_the_lengths_as_typed(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 54g of #54, item 5: ``--lengths 5,9,13,64`` was said as ``L=5:13:4,64``,
    three typed lengths folded into a range the user never wrote."""
    argv = ["profile", "--predict-only", "--encoders", "bilstm", "--modes", "infer"]
    argv += ["--dim", "8", "--batch-size", "2", option, "5,9,13,64"]
    assert main([*argv, "--no-report", "--no-progress", "--out", str(tmp_path / "p")]) == 0
    assert "no lengths measured, L=5,9,13,64 predicted ->" in capsys.readouterr().out


def test_without_a_compiler_the_console_says_so_once_quoting_it(tmp_path: Path) -> None:
    """Outside check 54g of #54, item 2: a sweep of chunked attention with no compiler exited 0
    with no word on the console; the one EagerTilesWarning, quoting the compiler's
    ``not found``, was only in worker.log. Now one console line, as fit prints (the worker
    restarted or three chunked variants: still one)."""
    environment = {
        **os.environ,
        "CXX": str(tmp_path / "no-compiler"),
        "SANBENCH_CACHE": str(tmp_path / "cache"),
        "PYTHONPATH": str(ROOT),
    }
    environment.pop("TORCH_EXTENSIONS_DIR", None)
    argv = ["profile", "--encoders", "disan,disan:chunk_size=8", "--lengths", "8"]
    argv += ["--batch-size", "2", "--dim", "8", "--repeats", "3", "--modes", "train"]
    argv += ["--no-report", "--no-progress", "--out", str(tmp_path / "p")]
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        env=environment,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "compiled tiles" in line]
    assert len(said) == 1 and said[0].startswith("warning: the chunked tanh attention's"), said
    assert f"{tmp_path / 'no-compiler'}: not found" in said[0], said


def test_a_stopped_sweep_says_its_signal_and_the_rows_it_kept(
    linear_sweep: Path, tmp_path: Path
) -> None:
    """Outside check 9y item 4: a SIGTERM 6 s into a sweep said "interrupted; finished rows
    are kept" over a folder with no ``profile.csv``. The line names the signal as every command
    does and counts the rows kept."""
    from harness.profiling.sweep import stopped_line

    rows = len(read(linear_sweep))
    resume = f"Resume: cd {os.getcwd()} && sanbench profile --resume --out '{linear_sweep}'"
    assert stopped_line(linear_sweep, signal.SIGINT) == (
        f"interrupted; {rows} finished rows kept. {resume}"
    )
    empty = tmp_path / "started"
    empty.mkdir()
    assert stopped_line(empty, signal.SIGTERM).startswith("terminated; no point finished. ")
