"""Every command and snippet of README.md and docs/ is executed as written, with a tiny budget
appended, so a document cannot drift from the code.

Each document's blocks run in order in one folder (a ``fit`` writes the checkpoint the next
``predict`` reads), with ``../shared`` beside it. Placeholders map to real files: ``DATA`` to
``../shared/datasets``, a GloVe file name or ``FILE`` to the GloVe subset there. What cannot
run on a CI machine (SLURM, CUDA, a named database server, installing packages, an editor, a
server a user opens) is listed in ``SKIPPED`` with the reason, and every skip is printed.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.harness.fixtures.terminal import foreground

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DOCUMENTS = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("docs/*.md"))]
# the examples of every command's --help, as one more document (in an order where each
# example's inputs are made first: a fit before predict, runs before the report)
HELP = "sanbench --help"
HELP_ORDER = ("data", "encoders", "fit", "encode", "predict", "profile", "suite", "tune")
HELP_ORDER += ("reproduce", "report")

# appended to each command (the last value of an option wins): the smallest run that still does
# what the command is for
BUDGETS = {
    "fit": "--trainer.max_epochs 1 --trainer.limit_train_batches 2 --trainer.limit_val_batches 2",
    # one cell in 16 of the grid, round-robin over its sorted cells: the whole grid is still
    # parsed and its files checked, a few cells train
    "suite": "--seeds 1 --folds 1 --max-steps 1 --limit-train-batches 1 --shard 1/16",
    "tune": "--trials 1 --max-epochs 1 --limit-train-batches 2 --limit-val-batches 2",
    "tune-memory": "--lengths 8,16 --batch-size 2 --dim 16",
    "profile": "--lengths 8 --batch-size 2 --dim 16 --repeats 3 --no-progress",
    "profile-predict": "--predict-lengths 8,16 --batch-size 2 --dim 16 --no-progress",
}

# (pattern in the command, why it does not run here); the first match wins
SKIPPED = [
    (r"(^|\s)\.\.\.(\s|$)", "elided (`...` stands for options given above)"),
    (r"--launcher slurm|^srun |^sinfo|one_node_slurm|^#!/bin/bash", "needs a SLURM cluster"),
    (r"--device cuda|--trainer.accelerator gpu|^torchrun ", "needs CUDA GPUs"),
    (r"@db\.lab|@host/", "needs the named PostgreSQL server"),
    (r"^pip install (?!\./examples/)|^export ", "changes the installed packages or the shell"),
    (r"^nox ", "a nox session around a sanbench command tested here (CI runs `nox -s tests`)"),
    (r"^\$EDITOR", "opens an editor"),
    (r"^(tensorboard|optuna-dashboard) ", "starts a server for a browser"),
    (r"LaunchOptions\(\"slurm\"", "needs a SLURM cluster"),
]

# the programs whose lines are commands (not output shown in a block), env assignments first
PROGRAMS = (
    r"(\w+=\S+ )*(sanbench|python|\$EDITOR|pip|nox|export|tensorboard|optuna-dashboard|srun"
    r"|sinfo|torchrun|tools/|#!)"
)

# what a placeholder stands for, replaced as a whole word
PLACEHOLDERS = {
    "DATA": "../shared/datasets",
    "D": "../shared/datasets",
    "FILE": "../shared/datasets/glove/glove.6B.50d.subset.txt",
    "glove.6B.300d.txt": "../shared/datasets/glove/glove.6B.50d.subset.txt",
    "glove.6B.50d.txt": "../shared/datasets/glove/glove.6B.50d.subset.txt",
    "glove.840B.300d.txt": "../shared/datasets/glove/glove.6B.50d.subset.txt",
    "/shared/suite": "runs/suite",  # a shared file system's folder: the document's own grid
    "glove.txt": "../shared/datasets/glove/glove.6B.50d.subset.txt",
    # the committed example of a user's own task (docs/data.md, "Your own data")
    "examples/own-data/reviews.yaml": str(ROOT / "examples" / "own-data" / "reviews.yaml"),
    "examples/own-data": str(ROOT / "examples" / "own-data"),
}

# files a document's commands read as a user's own
USER_FILES = {
    "questions.txt": "What is the capital of France ?\nWho wrote Hamlet ?\n",
    "sentences.txt": "a fine film .\nnot good at all .\n",
    "my_encoder.py": (
        "from encoders import register_encoder\n"
        "from encoders.models.rnn import build_bilstm\n\n\n"
        '@register_encoder("mine", paper="a user\'s own")\n'
        "def build_mine(input_dim: int = 300, hidden_dim: int = 300, dropout: float = 0.0):\n"
        "    return build_bilstm(input_dim=input_dim, hidden_dim=hidden_dim, dropout=dropout)\n"
    ),
}

# run folders a document's commands read as a user's own: test fixtures of the same kind
FIXTURES = ROOT / "tests" / "reports" / "fixtures"
USER_RUNS = {
    "runs/profile-h100-fp32": "profile-cpu-fp32",
    "runs/profile-h100-bf16": "profile-cpu-bf16",
    "runs/profile-a100": "profile-cpu-fp32",
    "runs/profile-h100": "profile-cpu-bf16",
    "runs/profile-fp32": "profile-cpu-fp32",
    "runs/profile-bf16": "profile-cpu-bf16",
    "runs/suite": "suite-tiny",
    "runs/studies": "study-block-length-memory",
}

# run folders a document reads but does not make: made by these commands first
MADE_RUNS = {
    "runs/trec": "sanbench fit --task trec --encoder bi_blosan --data-dir DATA --out runs/trec",
}

# names the Python snippets use without defining them (a user has them in hand)
SNIPPET_NAMES = """
import functools
import torch
x, mask = torch.randn(2, 5, 300), torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]).bool()
path = D = "../shared/datasets"
glove_path_or_None = GLOVE = "../shared/datasets/glove/glove.6B.50d.subset.txt"
OUT = "runs/snippet"
"""


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, first line in the document and text."""

    language: str
    line: int
    text: str


def help_examples(command: str) -> str:
    """The example command lines of ``sanbench COMMAND --help`` (its run function's docstring)."""
    from harness.cli import SUBCOMMANDS

    module, function = SUBCOMMANDS[command][0].split(":")
    source = ROOT.joinpath(*module.split(".")).with_suffix(".py").read_text()
    (run,) = [node for node in ast.parse(source).body if getattr(node, "name", "") == function]
    doc = ast.get_docstring(run) or ""
    lines = re.sub(r"\\\n\s*", "", doc).splitlines()
    # the first line names the command in prose ("sanbench data stats: per-split counts ...")
    examples = (line.strip() for line in lines if line.strip().startswith("sanbench "))
    return "\n".join(line for line in examples if not re.match(r"sanbench [a-z ]+: ", line))


def document_text(document: str) -> str:
    """A document's Markdown; for :data:`HELP`, one shell block per command's examples."""
    if document != HELP:
        return (ROOT / document).read_text()
    return "".join(f"`{c}`:\n```bash\n{help_examples(c)}\n```\n" for c in HELP_ORDER)


def blocks(document: str) -> list[Block]:
    """The fenced blocks of ``document`` (indented ones too), in order."""
    text = document_text(document)
    found = []
    for match in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```", text, re.DOTALL | re.MULTILINE):
        indent = len(match.group(1))
        body = "\n".join(line[indent:] for line in match.group(3).splitlines())
        found.append(Block(match.group(2), text[: match.start()].count("\n") + 1, body))
    return found


def commands(block: Block) -> list[str]:
    """A shell block's commands: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", "", block.text)
    lines = (re.sub(r"(^|\s+)#(?!!).*$", "", line).strip() for line in joined.splitlines())
    return [line for line in lines if line]


def skip_reason(command: str) -> str | None:
    return next((why for pattern, why in SKIPPED if re.search(pattern, command)), None)


def with_placeholders(command: str, files_only: bool = False) -> str:
    """``command`` with each placeholder replaced (in Python, only file names: ``D`` is a
    variable there)."""
    for name, value in PLACEHOLDERS.items():
        if files_only and "." not in name:
            continue
        command = re.sub(rf"(?<![\w./-]){re.escape(name)}(?![\w/-])", value, command)
    return command


def with_budget(command: str) -> str:
    """``command`` with its subcommand's budget before any output redirection."""
    words = command.split()
    if "sanbench" not in words:
        return command
    rest = [w for w in words[words.index("sanbench") + 1 :] if not w.startswith("-")]
    sub = rest[0] if rest and rest[0] != "my_encoder" else (rest[1] if len(rest) > 1 else "")
    if sub == "tune" and "block-length-memory" in words:
        sub = "tune-memory"
    if sub == "profile" and "--predict-only" in words:
        sub = "profile-predict"
    budget = BUDGETS.get(sub, "")
    if not budget or "--aggregate-only" in words or "--help" in words:
        return command
    head, redirect, tail = command.partition(" > ")
    return f"{head} {budget}{redirect}{tail}"


def environment(work: Path) -> dict[str, str]:
    """The commands' environment: this Python's ``sanbench`` first on PATH, the document's
    folder and its installed example package importable."""
    bin_dir = Path(sys.executable).parent
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": os.pathsep.join([str(work), str(work / "site")]),
        "OMP_NUM_THREADS": "1",
    }


def run_shell(
    command: str, work: Path, folder: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``command`` through bash in ``folder`` (default ``work``)."""
    return subprocess.run(
        ["bash", "-c", command], cwd=folder or work, env=environment(work), capture_output=True,
        text=True, timeout=900,
    )  # fmt: skip


def run_until_training(command: str, work: Path, out: str) -> subprocess.CompletedProcess:
    """A command that runs for hours (the reproduction): interrupted with one SIGINT to its
    process group, as a terminal's Ctrl-C, once its runs train."""
    process = foreground(
        ["bash", "-c", f"exec {command}"], cwd=work, env=environment(work), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and process.poll() is None:
        if any((work / out).glob("**/fit_config.yaml")):
            time.sleep(5)
            break
        time.sleep(1)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def check_output(result: subprocess.CompletedProcess, label: str) -> None:
    """No traceback and no library log line reached the console."""
    console = result.stdout + result.stderr
    assert "Traceback" not in console, f"{label}: a traceback\n{console[-3000:]}"
    noise = re.findall(
        r"^.*(?:\[W\d+|USDT:|UserWarning|💡|`Trainer\.fit` stopped).*$", console, re.MULTILINE
    )
    assert not noise, f"{label}: library lines on the console: {noise[:3]}"


def reads_without_making(text: str, run: str) -> bool:
    """Whether a document names the run folder ``run`` without a command writing it."""
    written = re.search(rf"--out {re.escape(run)}(?![\w/-])", text)
    return bool(re.search(rf"{re.escape(run)}(?![\w-])", text)) and not written


def as_run_here(command: str, work: Path) -> tuple[str, Path]:
    """The command and its folder: the example package installed into ``work/site`` (on the
    commands' PYTHONPATH) instead of the environment; pytest run from the checkout."""
    if command.startswith("pip install ./examples/"):
        package = ROOT / command.split()[2]
        flags = "--quiet --no-build-isolation --no-deps --target site"
        return f"{sys.executable} -m pip install {flags} {package}", work
    if command.startswith("python -m pytest "):
        return f"{command} -p no:cacheprovider", ROOT
    return command, work


def run_document(document: str, work: Path) -> list[str]:
    """Runs every block of ``document`` in ``work``; returns the skipped commands with reasons."""
    skipped = []
    text = document_text(document)
    for run, fixture in USER_RUNS.items():
        if reads_without_making(text, run):
            shutil.copytree(FIXTURES / fixture, work / run)
    for run, command in MADE_RUNS.items():
        if reads_without_making(text, run):
            result = run_shell(with_budget(with_placeholders(command)), work)
            assert result.returncode == 0, f"making {run}: {result.stderr[-3000:]}"
    for block in blocks(document):
        label = f"{document}:{block.line}"
        if block.language == "yaml" and "space.yaml" in text:
            if "low:" in block.text:  # the search space the next block's --space names
                (work / "space.yaml").write_text(block.text)
            continue
        if block.language == "python":
            if reason := skip_reason(block.text):
                skipped.append(f"{label}: {reason}")
                continue
            script = SNIPPET_NAMES + with_placeholders(block.text, files_only=True)
            result = run_shell(f"python - <<'EOF'\n{script}\nEOF", work)
            assert result.returncode == 0, f"{label}\n{result.stderr[-3000:]}"
            continue
        if block.language not in ("bash", ""):
            continue
        for command in commands(block):
            if not re.match(PROGRAMS, command):
                continue
            if reason := skip_reason(command):
                skipped.append(f"{label}: {command[:70]}: {reason}")
                continue
            ready, folder = as_run_here(with_budget(with_placeholders(command)), work)
            start = time.monotonic()
            if " reproduce " in ready and "--tables-only" not in ready:
                out = re.search(r"--out (\S+)", ready).group(1)
                result = run_until_training(ready, work, out)
                assert result.returncode == 130, f"{label}: {ready}\n{result.stderr[-3000:]}"
                assert "resume" in result.stderr.lower(), result.stderr[-2000:]
            else:
                result = run_shell(ready, work, folder)
                assert result.returncode == 0, f"{label}: {ready}\n{result.stderr[-3000:]}"
            check_output(result, f"{label}: {command[:60]}")
            print(f"{time.monotonic() - start:5.0f} s  {label}: {command[:70]}")
    return skipped


@pytest.mark.docs
@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("document", [*DOCUMENTS, HELP])
def test_every_command_of_the_document_runs_as_written(document: str, tmp_path: Path) -> None:
    if not (SHARED / "datasets").is_dir():
        pytest.skip(f"the documents' commands use ../shared/datasets, not found at {SHARED}")
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED.resolve())
    for name, text in USER_FILES.items():
        (work / name).write_text(text)
    skipped = run_document(document, work)
    print("\n".join(["skipped:", *skipped]) if skipped else "nothing skipped")
    shutil.rmtree(work, ignore_errors=True)


def test_the_command_reader_joins_lines_drops_comments_and_maps_placeholders() -> None:
    block = Block("bash", 1, "sanbench fit --data-dir DATA \\\n    --out runs/x   # a comment\n")
    (command,) = commands(block)
    assert command == "sanbench fit --data-dir DATA --out runs/x"
    assert with_placeholders(command).split()[3] == "../shared/datasets"
    assert with_budget("sanbench fit --x 1 > a.yaml").endswith(f"{BUDGETS['fit']} > a.yaml")
    assert skip_reason("sanbench suite ... --launcher slurm") is not None
    assert skip_reason("sanbench fit --task trec") is None


def test_every_commands_help_examples_are_read() -> None:
    from harness.cli import SUBCOMMANDS

    assert set(HELP_ORDER) == set(SUBCOMMANDS)
    text = document_text(HELP)
    assert "sanbench profile --preset quick --out runs/quick" in text
    joined = "sanbench tune --study block-length --task trec --encoder bi_blosan --trials 12 "
    assert joined + "--data-dir ../shared/datasets" in text  # continuation lines joined
