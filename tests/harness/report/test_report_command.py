"""The ``sanbench report`` command other commands print runs as printed (issue 56: a suite ended
with ``(HTML: sanbench report runs/suite)``, which exits 2 for want of ``--out``)."""

from __future__ import annotations

import html
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.fixtures import warm_commands
from tests.harness.problem_lines import files_lines

FIXTURES = Path(__file__).parents[2] / "reports" / "fixtures"
SANBENCH = Path(sys.executable).with_name("sanbench")


def run(words: list[str], cwd: Path, fresh: bool = False) -> subprocess.CompletedProcess[str]:
    """``words`` in a warm process, or in a fresh interpreter (``fresh``)."""
    start = subprocess.run if fresh else warm_commands.run
    return start(words, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # two sanbench processes
def test_the_command_a_suite_prints_builds_its_report(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "suite-tiny", tmp_path / "runs" / "suite")
    done = run([str(SANBENCH), "suite", "--aggregate-only", "--out", "runs/suite"], tmp_path)
    assert done.returncode == 0, done.stderr
    (tables, printed) = re.findall(r"^tables: (.*) \(HTML: (.*)\)$", done.stdout, re.MULTILINE)[0]
    assert tables == str(tmp_path / "runs" / "suite" / "tables" / "tables.md")  # 65797ac: relative
    assert printed.startswith(f"cd {tmp_path} && sanbench report ")
    elsewhere = tmp_path / "elsewhere"  # run by the shell from another folder, as pasted
    elsewhere.mkdir()
    path = f"{SANBENCH.parent}{os.pathsep}{os.environ['PATH']}"  # this sanbench
    built = subprocess.run(
        ["bash", "-c", printed], cwd=elsewhere, env={**os.environ, "PATH": path},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, f"{printed!r} exited {built.returncode}: {built.stderr}"
    index = tmp_path / "runs" / "suite" / "report" / "index.html"
    assert built.stdout.strip() == index.resolve().as_uri() and index.is_file()


def test_the_command_quotes_what_a_shell_would_split(tmp_path: Path) -> None:
    from harness.report.options import report_command  # new with issue 56

    runs = [tmp_path / "my runs" / "suite", tmp_path / "b;c"]
    words = shlex.split(report_command(runs, tmp_path / "my runs" / "site"))
    here = ["cd", os.getcwd(), "&&", "sanbench"]  # runs from any folder (#56 leftovers, item 3)
    assert words == [*here, "report", *map(str, runs), "--out", f"{tmp_path}/my runs/site"]


def test_a_file_given_as_a_run_folder_is_called_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside check 13: ``report metrics.json`` said "no such folder" of a file that exists."""
    from harness.cli import main

    given = tmp_path / "metrics.json"
    given.write_text("{}")
    assert main(["report", str(given), str(tmp_path / "gone"), "--out", str(tmp_path / "s")]) == 2
    lines = files_lines(capsys.readouterr().err)  # the filesystem's alone: no pointer
    assert lines == [
        f"sanbench report: {given}: a file, not a folder; report takes run folders (a fit's, "
        "suite's, study's, profile's or reproduction's --out)",
        f"sanbench report: {tmp_path / 'gone'}: no such folder",
    ]
    assert not (tmp_path / "s").exists()


def test_the_index_names_its_command_as_it_runs_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside check b56e of #56, item 6: the index recorded ``sanbench report runs/fopt ...
    --out ../rep2``, which from another folder exits 2 (``runs/fopt: no such folder``); since
    8943e9f it is ``cd /abs && sanbench report ...``, as the console's rebuild line."""
    from harness.cli import main

    here = tmp_path / "here"
    shutil.copytree(FIXTURES / "study-dropout-trec", here / "runs" / "t1")
    monkeypatch.chdir(here)
    assert main(["report", "runs/t1", "--out", "../site"]) == 0
    (recorded,) = re.findall(r"<pre>(.*?)</pre>", (tmp_path / "site" / "index.html").read_text())
    words = shlex.split(html.unescape(recorded))
    assert words == ["cd", str(here), "&&", "sanbench", "report", "runs/t1", "--out", "../site"]
