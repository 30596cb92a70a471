"""The worked plugin of docs/encoders.md ("Adding an encoder"), end to end: installed offline
into a temporary folder, its encoder is listed, trained, applied, profiled, run in a suite and
tuned by the ``sanbench`` command; a checkpoint of it says which package to install."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sanbench-example-encoder"


def _sanbench(cwd: Path, path: list[Path], *argv: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(map(str, path)),
        "OMP_NUM_THREADS": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


@pytest.mark.slow
def test_the_example_plugin_works_with_every_command(trec_dir: Path, tmp_path: Path) -> None:
    source, site = tmp_path / "source", tmp_path / "site"
    shutil.copytree(EXAMPLE, source)  # pip builds in the source tree: never in the repository's
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation"]
    install += ["--no-deps", "--no-index", "--target", str(site), str(source)]
    subprocess.run(install, check=True, capture_output=True)
    path = [site, ROOT]

    def ok(*argv: str) -> str:
        done = _sanbench(tmp_path, path, *argv)
        assert done.returncode == 0, f"{argv}: {done.stderr[-2000:]}"
        return done.stdout

    listed = [
        line for line in ok("encoders", "--input-dim", "8").splitlines() if "gated_bow" in line
    ]
    assert len(listed) == 1 and "entry point of sanbench-example-encoder 0.1.0" in listed[0]

    small = ["--model.hidden_dim", "4", "--model.head_hidden", "8"]
    data = ["--task", "trec", "--data-dir", str(trec_dir)]
    ok("fit", *data, "--encoder", "gated_bow", "--out", "run", "--trainer.max_epochs", "1", *small)
    checkpoint = tmp_path / "run" / "checkpoints" / "last.ckpt"
    (tmp_path / "new.txt").write_text("how many ?\nwho is the person ?\n")
    apply = ["--ckpt", str(checkpoint), "--input", "new.txt", "--out"]
    ok("predict", *apply, "labels.csv")
    assert len((tmp_path / "labels.csv").read_text().splitlines()) == 3  # header + 2 lines
    ok("encode", *apply, "vectors.npy")
    assert np.load(tmp_path / "vectors.npy").shape == (2, 4)
    missing = _sanbench(tmp_path, [ROOT], "predict", *apply, "again.csv")
    assert missing.returncode == 2 and "pip install sanbench-example-encoder" in missing.stderr

    profile = ["profile", "--encoders", "gated_bow", "--lengths", "8,16", "--batch-size", "2"]
    ok(*profile, "--dim", "8", "--repeats", "3", "--no-progress", "--no-report", "--out", "prof")
    rows = (tmp_path / "prof" / "profile.csv").read_text().splitlines()
    assert len(rows) > 1 and all("gated_bow" in row for row in rows[1:])

    ok("suite", "--tasks", "trec", "--encoders", "gated_bow", "--seeds", "1", "--data-dir",
       str(trec_dir), "--out", "suite", "--max-steps", "2")  # fmt: skip
    (results,) = (tmp_path / "suite").glob("results-*-of-*.csv")
    assert "gated_bow" in results.read_text()

    ok("tune", "--study", "dropout", *data, "--encoder", "gated_bow", "--trials", "1",
       "--max-steps", "2", "--storage", f"sqlite:///{tmp_path / 's.db'}", "--out", "study",
       *small)  # fmt: skip
    summary = json.loads((tmp_path / "study" / "summary.json").read_text())
    assert summary["trial_counts"] == {"complete": 1}
