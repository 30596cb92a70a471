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


# sanbench's commands one after another in one process (the test command paid torch's and
# Lightning's imports once per command: 8 processes), each one's exit status on a line
COMMANDS = """
import json, sys
from harness.cli import main
for argv in json.loads(sys.argv[1]):
    print(json.dumps({"status": main(argv)}), flush=True)
"""


def _sanbench(cwd: Path, path: list[Path], *commands: list[str]) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(map(str, path)),
        "OMP_NUM_THREADS": "1",
    }
    return subprocess.run(
        [sys.executable, "-c", COMMANDS, json.dumps(commands)],
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

    small = ["--model.hidden_dim", "4", "--model.head_hidden", "8"]
    data = ["--task", "trec", "--data-dir", str(trec_dir)]
    checkpoint = tmp_path / "run" / "checkpoints" / "last.ckpt"
    (tmp_path / "new.txt").write_text("how many ?\nwho is the person ?\n")
    apply = ["--ckpt", str(checkpoint), "--input", "new.txt", "--out"]
    profile = ["profile", "--encoders", "gated_bow", "--lengths", "8,16", "--batch-size", "2"]
    commands = [
        ["encoders", "--input-dim", "8"],
        ["fit", *data, "--encoder", "gated_bow", "--out", "run", "--trainer.max_epochs", "1",
         *small],
        ["predict", *apply, "labels.csv"],
        ["encode", *apply, "vectors.npy"],
        [*profile, "--dim", "8", "--repeats", "3", "--no-progress", "--no-report", "--out",
         "prof"],
        ["suite", "--tasks", "trec", "--encoders", "gated_bow", "--seeds", "1", "--data-dir",
         str(trec_dir), "--out", "suite", "--max-steps", "2"],
        ["tune", "--study", "dropout", *data, "--encoder", "gated_bow", "--trials", "1",
         "--max-steps", "2", "--storage", f"sqlite:///{tmp_path / 's.db'}", "--out", "study",
         *small],
    ]  # fmt: skip
    done = _sanbench(tmp_path, [site, ROOT], *commands)
    lines = done.stdout.splitlines()
    statuses = [json.loads(line)["status"] for line in lines if line.startswith('{"status"')]
    assert statuses == [0] * len(commands), f"{statuses}: {done.stderr[-3000:]}"

    listing = lines[: next(k for k, line in enumerate(lines) if line.startswith('{"status"'))]
    listed = [line for line in listing if "gated_bow" in line]
    assert len(listed) == 1 and "entry point of sanbench-example-encoder 0.1.0" in listed[0]
    assert len((tmp_path / "labels.csv").read_text().splitlines()) == 3  # header + 2 lines
    assert np.load(tmp_path / "vectors.npy").shape == (2, 4)
    rows = (tmp_path / "prof" / "profile.csv").read_text().splitlines()
    assert len(rows) > 1 and all("gated_bow" in row for row in rows[1:])
    (results,) = (tmp_path / "suite").glob("results-*-of-*.csv")
    assert "gated_bow" in results.read_text()
    summary = json.loads((tmp_path / "study" / "summary.json").read_text())
    assert summary["trial_counts"] == {"complete": 1}

    # without the plugin installed, its checkpoint says which package to install
    missing = _sanbench(tmp_path, [ROOT], ["predict", *apply, "again.csv"])
    assert missing.stdout.splitlines()[-1] == '{"status": 2}', missing.stderr[-2000:]
    assert "pip install sanbench-example-encoder" in missing.stderr
