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
    assert steps[-1] == commands[1] == "pip install nox && nox -s tests"


def test_readme_names_the_fast_loop_below_the_quick_start() -> None:
    section = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    section = section.split("\n## ", 1)[0]
    assert 'nox -s tests -- -m "not slow"' in section
