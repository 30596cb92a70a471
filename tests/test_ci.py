"""CI runs the README's test command verbatim, and the README names the fast loop."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    """The commands of the README's quick start block, comments dropped."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, "README's quick start has no bash block"
    lines = (line.split("#", 1)[0].strip() for line in block.group(1).splitlines())
    return [line for line in lines if line]


def test_ci_runs_the_readmes_test_command_verbatim() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2, commands
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    steps = [line for line in script if line.strip() and not line.lstrip().startswith("#")]
    assert steps[-1] == commands[1] == "pip install nox uv && nox -s tests"
    assert "pip install nox uv && nox -s lint" in steps[:-1]  # lint first: a style error fails fast


def test_readme_names_the_fast_loop_below_the_quick_start() -> None:
    section = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    section = section.split("\n## ", 1)[0]
    assert 'nox -s tests -- -m "not slow"' in section


def test_quiet_tests_run_alone_and_a_users_marker_still_applies() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("noxfile", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    noxfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noxfile)
    assert noxfile.with_marker([], "not quiet") == ["-m", "(not quiet)"]
    assert noxfile.with_marker(["-m", "not slow", "-x"], "quiet") == [
        "-m",
        "(quiet) and (not slow)",
        "-x",
    ]
    assert noxfile.with_marker(["-mslow"], "not quiet") == ["-m", "(not quiet) and (slow)"]
