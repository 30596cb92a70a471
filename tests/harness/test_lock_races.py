"""Writers started at the same moment over one output: one writes, any other is refused, never
two at once (issue 54 leftovers). Real processes: a lock file another process opened before
its holder ended (a file's; a folder's, taken away with it), and two suites given one folder
within milliseconds, ten times."""

from __future__ import annotations

import csv
import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
FILE_WRITER = """
import sys
import time
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
    and a third one made a new file and locked that: two writers of one --out at once. Its lock
    file now goes as a folder's does (outside check 54i item 4: it stayed for good): with the
    folder held and the file free, and a writer opens and locks it with the folder held."""
    out = tmp_path / "pp.csv"
    first = _file_writer(out)
    assert first.stdout.readline() == "held\n"
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(folder, fcntl.LOCK_EX)  # the second one takes the lock as one_writer does
    second = os.open(tmp_path / f".sanbench-{out.name}.lock", os.O_RDWR)  # opened, not locked
    try:
        first.stdin.write("\n")
        first.stdin.flush()
        time.sleep(1)  # the first one ends meanwhile
        fcntl.flock(second, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the second one writes now
        os.close(folder)
        first.communicate(timeout=60)
        third = _file_writer(out)
        said, _ = third.communicate("\n", timeout=60)
    finally:
        os.close(second)
    assert said == "refused\n"


FOLDER_WRITERS = {
    # a report, profile or reproduce: its --out folder
    "out_folder": "with out_folder('report', out):",
    # a fit: its run folder
    "fit": "with removed_if_left_empty(out), one_writer(out):",
}
FOLDER_WRITER = """
import sys
import time
from pathlib import Path
from harness.outdir import FolderBusyError, one_writer, out_folder, removed_if_left_empty
out = Path(sys.argv[1])
try:
    {}
        print("held", flush=True)
        sys.stdin.readline()  # then ends having written no file: its folder is taken away
except FolderBusyError:
    print("refused", flush=True)
"""


def _folder_writer(how: str, out: Path) -> subprocess.Popen:
    """A process writing the folder ``out`` as ``how`` does; it says ``held`` or ``refused``."""
    return subprocess.Popen(
        [sys.executable, "-c", FOLDER_WRITER.format(FOLDER_WRITERS[how]), str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip


@pytest.mark.slow  # three processes
@pytest.mark.parametrize("how", FOLDER_WRITERS)
def test_a_folders_lock_opened_while_its_writer_ends_excludes_the_next_writer(
    how: str, tmp_path: Path
) -> None:
    """A command that ended having written no file took its lock file away (and the folder it
    had made), still held or just released: a second one taking the lock at that moment
    (filelock opens the file, then locks it; sanbench does so with the folder flock'ed) locked
    a file no path named, and a third one made a new file and locked that: two writers of one
    --out. Now a lock file goes only with the folder held and the file free."""
    out = tmp_path / "o"
    first = _folder_writer(how, out)
    assert first.stdout.readline() == "held\n"
    folder = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(folder, fcntl.LOCK_EX)  # the second one takes the lock as one_writer does
    second = os.open(out / ".sanbench.lock", os.O_RDWR)  # opened, not locked yet
    try:
        first.stdin.write("\n")
        first.stdin.flush()
        time.sleep(1)  # the first one ends meanwhile
        fcntl.flock(second, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the second one writes now
        os.close(folder)
        first.communicate(timeout=60)
        third = _folder_writer(how, out)
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


def _fit(trec_dir: Path, out: Path) -> subprocess.Popen:
    """``sanbench fit`` of a tiny model into ``out``, a real process."""
    words = [
        "fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir),
        "--embeddings", str(trec_dir / "glove.txt"), "--out", str(out),
        "--model.hidden_dim", "4", "--model.head_hidden", "8", "--trainer.max_epochs", "1",
    ]  # fmt: skip
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", *words], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip


def _listing(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


@pytest.mark.slow  # three fits
def test_two_fits_started_at_once_on_one_out_train_once(trec_dir: Path, tmp_path: Path) -> None:
    """Issue 54 leftovers (item 2): two ``fit`` runs given one new ``--out`` within 0.1 s. One
    trains, the other exits 2 with one line naming the first's PID; the folder holds what a
    fit alone makes there, nothing of the refused one."""
    alone = tmp_path / "alone"
    assert _fit(trec_dir, alone).wait(timeout=600) == 0
    out = tmp_path / "both"
    fits = [_fit(trec_dir, out)]
    time.sleep(0.05)
    fits.append(_fit(trec_dir, out))
    printed = [fit.communicate(timeout=600) for fit in fits]
    done = sorted((fit.returncode, fit.pid, *p) for fit, p in zip(fits, printed, strict=True))
    assert [status for status, *_ in done] == [0, 2], done
    (_, trained, _, _), (_, _, said, why) = done
    lines = [line for line in why.splitlines() if not line.startswith("(sanbench --debug")]
    busy = f"sanbench fit: {out} is being written by another sanbench process (PID {trained})"
    assert len(lines) == 1 and lines[0].startswith(busy), why
    assert said == ""
    assert _listing(out) == _listing(alone)
