"""Writers started at the same moment over one output: one writes, any other is refused, never
two at once (issue 54 leftovers). Real processes: a lock file another process opened before
its holder ended, and two suites given one folder within milliseconds, ten times."""

from __future__ import annotations

import csv
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
FILE_WRITER = """
import sys
from pathlib import Path
from harness.outdir import FolderBusyError, one_file_writer
try:
    with one_file_writer(Path(sys.argv[1])):
        print("held", flush=True)
        sys.stdin.readline()
except FolderBusyError:
    print("refused", flush=True)
"""
ROUNDS = 10


def _file_writer(out: Path) -> subprocess.Popen:
    """A process writing ``out`` as ``predict`` does; it says ``held`` or ``refused``."""
    return subprocess.Popen(
        [sys.executable, "-c", FILE_WRITER, str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip


@pytest.mark.slow  # three processes
def test_a_files_lock_opened_before_its_writer_ended_excludes_the_next_writer(
    tmp_path: Path,
) -> None:
    """predict took its lock file away as it ended, still holding it. A second predict that had
    opened the file by then (filelock opens it, then locks it) locked an inode no path named,
    and a third one made a new file and locked that: two writers of one --out at once."""
    out = tmp_path / "pp.csv"
    first = _file_writer(out)
    assert first.stdout.readline() == "held\n"
    second = os.open(tmp_path / f".sanbench-{out.name}.lock", os.O_RDWR)  # opened, not locked
    try:
        first.communicate("\n", timeout=60)
        fcntl.flock(second, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the second one writes now
        third = _file_writer(out)
        said, _ = third.communicate("\n", timeout=60)
    finally:
        os.close(second)
    assert said == "refused\n"


def _suite(shard: str, trec_dir: Path, log: Path) -> subprocess.Popen:
    worker = ROOT / "tests" / "harness" / "fixtures" / "suite_start_worker.py"
    return subprocess.Popen(
        [sys.executable, str(worker), shard, str(trec_dir), str(log)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def _start(suites: list[subprocess.Popen], out: Path) -> list[str]:
    """Give every suite ``out`` at once; their exit statuses."""
    for suite in suites:
        suite.stdin.write(f"{out}\n")
        suite.stdin.flush()
    return [suite.stdout.readline().strip() for suite in suites]


@pytest.mark.slow  # two processes, twenty suites
def test_two_suites_sharing_cells_started_at_once_never_both_run(
    trec_dir: Path, tmp_path: Path
) -> None:
    """A suite checked the other shards' locks, then loaded its fit and took its own lock: two
    suites of plans 1/1 and 1/2 (the same cell) given one new folder at once both passed the
    check and both trained the cell. The check and the lock are one step now: one suite runs,
    the other exits 2 (the folder is the first one's: the second does not remove it)."""
    log = tmp_path / "fits.log"
    suites = [_suite(shard, trec_dir, log) for shard in ("1/1", "1/2")]
    try:
        assert _start(suites[:1], tmp_path / "warm-1") == ["0"]  # libraries loaded
        assert _start(suites[1:], tmp_path / "warm-2") == ["0"]
        for round_ in range(ROUNDS):
            out = tmp_path / f"out{round_}"
            statuses = sorted(_start(suites, out))
            fits = [
                line.split()[:2]
                for line in log.read_text().splitlines()
                if line.endswith(f" {out}")
            ]
            # one fit of the cell: the other suite was refused, or came after and found it done
            assert statuses in (["0", "0"], ["0", "2"]) and len(fits) == 2, (statuses, fits)
            rows = [row for path in out.glob("results-*.csv") for row in _rows(path)]
            assert [row["status"] for row in rows] == ["ok"], (round_, rows)
    finally:
        for suite in suites:
            suite.communicate("", timeout=60)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))
