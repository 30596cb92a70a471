"""``sanbench reproduce``'s machinery on the tiny fixtures: two tasks, two encoders, two runs
per cell, two workers, a few steps; then resume after a simulated kill."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from pathlib import Path

import pytest

from harness.cli import main
from harness.launch import LaunchOptions
from harness.reproduce.preset import Preset
from harness.reproduce.reproduce import reproduce
from tests.harness.fixtures import warm_commands
from tests.harness.fixtures.terminal import foreground

FIXTURES = Path(__file__).resolve().parents[2] / "datamodules" / "fixtures"
TINY = Preset(
    tasks=("cr", "sst2"),
    encoders=("multi_cnn", "bi_blosan"),
    seeds=2,
    folds=2,
    overrides={
        "model.hidden_dim": 8,
        "trainer.max_epochs": 1,
        "trainer.max_steps": 2,
        "trainer.limit_train_batches": 2,
    },
)


def _rows(out: Path) -> list[dict[str, str]]:
    rows = []
    for path in sorted(out.glob("results-*-of-*.csv")):
        with path.open(newline="") as handle:
            rows += list(csv.DictReader(handle))
    return rows


def _run(out: Path, part: Preset | None = None) -> None:
    reproduce(
        TINY,
        out,
        FIXTURES / "kim2014",
        FIXTURES / "vectors" / "tiny.glove.txt",
        LaunchOptions("process", jobs=2),
        threads=1,
        command="test",
        part=part,
    )


@pytest.mark.slow
def test_tiny_reproduction_runs_in_parallel_writes_tables_and_resumes(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reproduce"
    _run(out, part=dataclasses.replace(TINY, tasks=("cr",)))  # a part of the grid first
    assert {r["task"] for r in _rows(out)} == {"cr"}
    with (out / "reproduction" / "cells.csv").open(newline="") as handle:
        assert {c["task"] for c in csv.DictReader(handle)} == {"cr"}
    part = {p: p.stat().st_mtime_ns for p in out.glob("runs/*/*/*/metrics.json")}
    _run(out)  # the whole grid: only sst2's runs are left
    assert all(path.stat().st_mtime_ns == stamp for path, stamp in part.items())
    console = "".join(capfd.readouterr())
    # the workers' progress lines, without Lightning's noise: the part's, then the rest's
    assert "[1-of-2 1/2] cr " in console and re.search(r"\[[12]-of-2 \d/\d\] sst2 ", console)
    assert not [word for word in ("Tip:", "srun", "LeafSpec") if word in console], console
    rows = _rows(out)
    assert sorted((r["task"], r["encoder"], r["replicate"]) for r in rows) == [
        (task, encoder, replicate)
        for task, replicates in (("cr", ("fold0", "fold1")), ("sst2", ("seed0", "seed1")))
        for encoder in ("bi_blosan", "multi_cnn")
        for replicate in replicates
    ]
    assert {r["status"] for r in rows} == {"ok"}, [r["error"] for r in rows]
    assert len(list(out.glob("results-*-of-2.csv"))) == 2  # one file per worker

    folder = out / "reproduction"
    with (folder / "cells.csv").open(newline="") as handle:
        cells = list(csv.DictReader(handle))
    assert [(c["task"], c["encoder"], c["n"]) for c in cells] == [
        ("cr", "multi_cnn", "2"),
        ("cr", "bi_blosan", "2"),
        ("sst2", "multi_cnn", "2"),
        ("sst2", "bi_blosan", "2"),
    ]
    # Bi-BloSAN Table 6: Bi-BloSAN CR 84.8 (0.9), SST-2 87.4 (0.2)
    paper = {c["task"]: (float(c["paper_mean"]), float(c["paper_std"])) for c in cells[1::2]}
    assert paper == {"cr": (84.8, 0.9), "sst2": (87.4, 0.2)}
    text = (folder / "reproduction.md").read_text()
    assert "### CR (folds 0-1 of 10-fold CV)" in text and "### SST-2 (seeds 0-1)" in text
    assert text.count("[^dep]:") == 1
    with (folder / "runs.csv").open(newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 8
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "reproduce" and manifest["preset"]["seeds"] == 2
    assert manifest["caps"]["cr"]["bi_blosan"] == {"max_epochs": 1, "max_steps": 2}
    assert len(manifest["sessions"]) == 2 and "load_end" in manifest["sessions"][1]

    # a kill during one run: its row and metrics.json never got written
    killed = out / "runs" / "sst2" / "bi_blosan" / "seed1"
    stamps = {p: p.stat().st_mtime_ns for p in out.glob("runs/*/*/*/metrics.json")}
    (killed / "metrics.json").unlink()
    for path in out.glob("results-*-of-2.csv"):
        lines = path.read_text().splitlines(keepends=True)
        kept = [line for line in lines if not line.startswith("sst2,bi_blosan,seed1")]
        path.write_text("".join(kept))
    _run(out)
    rows = _rows(out)
    assert len(rows) == 8 and {r["status"] for r in rows} == {"ok"}
    # only the killed run's shard was launched: no process that finds nothing to do
    assert list(out.glob("jobs/*/reproduce-1-of-1.result.pkl"))  # this command's launch folder
    for path, stamp in stamps.items():
        if path.parent != killed:  # finished runs were not repeated
            assert path.stat().st_mtime_ns == stamp, path
    assert (killed / "metrics.json").stat().st_mtime_ns != stamps[killed / "metrics.json"]
    assert len(json.loads((out / "manifest.json").read_text())["sessions"]) == 3
    (folder / "cells.csv").unlink()
    assert main(["reproduce", "--out", str(out), "--tables-only"]) == 0  # the manifest's preset
    assert (folder / "cells.csv").read_text().count("\n") == 5


@pytest.mark.slow  # real processes: the command, its two workers, then the resume
def test_one_ctrl_c_stops_every_worker_and_records_nothing_as_failed(tmp_path: Path) -> None:
    """``--launcher local``: one Ctrl-C stops both jobs, exit 130, and the same command
    finishes the reproduction. Before: each Ctrl-C killed the runs in progress, recorded them as
    failed and the workers started the next ones; the third one exited, with a traceback."""
    import os
    import signal
    import subprocess
    import sys

    from tests.harness.training.callbacks.test_stop_on_signal import _wait_for

    out, root = tmp_path / "reproduce", Path(__file__).resolve().parents[3]
    script = [sys.executable, "-m", "tests.harness.fixtures.reproduce_interrupted", str(out)]
    script += ["--launcher", "local", "--jobs", "2"]  # submitit jobs (process: the test below)
    part = [*script, "--tasks", "cr"]  # a part of the grid: cr x both encoders
    process = foreground(
        part, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root
    )  # its own process group and SIGINT's default handling, as a terminal gives a command
    _wait_for(out / "runs" / "cr" / "bi_blosan" / "fold0" / "checkpoints" / "last.ckpt", process)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: the whole foreground group
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stdout + stderr, stdout + stderr
    assert f"resume with: cd {root} && sanbench reproduce" in stderr
    # a job whose run had not started when the Ctrl-C came saved nothing, and says so (16cf4ba)
    started_not = r"1 with their runs saved, 1 before training \(nothing saved\)"
    saved = rf"(their runs saved|{started_not})"
    assert re.search(rf"interrupted: [12] of 2 jobs stopped, {saved}", stderr), stderr
    assert [row for row in _rows(out) if row["status"] != "ok"] == []  # nothing failed
    again = warm_commands.run(part, capture_output=True, text=True, cwd=root, timeout=600)
    assert again.returncode == 0, again.stderr
    rows = _rows(out)
    assert len(rows) == 2 and {row["status"] for row in rows} == {"ok"}
    logs = out / "runs" / "cr" / "bi_blosan" / "fold0" / "logs"
    assert (logs / "version_1").is_dir()  # the interrupted run went on from its checkpoint
    cells = out / "reproduction" / "cells.csv"
    assert {row["task"] for row in csv.DictReader(cells.open())} == {"cr"}


@pytest.mark.slow  # real processes: the command and its two workers, stopped as they start
def test_a_ctrl_c_while_the_workers_start_stops_them_without_a_traceback(tmp_path: Path) -> None:
    """A Ctrl-C that lands while a worker still imports (multiprocessing's bootstrap, before
    the worker leaves the terminal's process group) stops it quietly too."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import psutil

    out, root = tmp_path / "reproduce", Path(__file__).resolve().parents[3]
    script = [sys.executable, "-m", "tests.harness.fixtures.reproduce_interrupted", str(out)]
    process = foreground(
        script, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root
    )
    command = psutil.Process(process.pid)
    deadline = time.monotonic() + 120
    while len(command.children()) < 2 and process.poll() is None:
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGINT)  # the workers are still starting up
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stdout + stderr, stdout + stderr
    assert f"resume with: cd {root} && sanbench reproduce" in stderr
    assert [row for row in _rows(out) if row["status"] != "ok"] == []


def test_a_rerun_of_finished_runs_reads_no_data_file(tmp_path: Path) -> None:
    """Leftovers of #56, item 4: the rerun of a finished ``reproduce`` read every task's files
    again (TREC's Windows-1252 warning, the no-embeddings one) where a finished fit, suite or
    study reads none. The files of the runs left are still read and checked first."""
    from harness.errors import InputError
    from harness.reproduce.reproduce import check_inputs

    part = dataclasses.replace(TINY, tasks=("cr",), encoders=("multi_cnn",))
    out, gone = tmp_path / "reproduce", tmp_path / "no data here"
    out.mkdir()
    rows = [f"cr,multi_cnn,{run.replicate},ok\n" for run in part.grid()]
    (out / "results-1-of-1.csv").write_text("task,encoder,replicate,status\n" + "".join(rows))
    check_inputs(part, out, gone, None)  # every run finished: no file read
    (out / "results-1-of-1.csv").write_text("task,encoder,replicate,status\n" + rows[0])
    with pytest.raises(InputError, match="no data here"):
        check_inputs(part, out, gone, None)  # a run is left: its files are read
