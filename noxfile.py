"""nox sessions. Every session installs torch through constraints.txt (the CPU build CI has).

Virtualenvs are made by uv when it is installed (``pip install nox uv``: a session's virtualenv
in seconds, from uv's cache after the first), else by virtualenv and pip. uv is pointed at the
package sources pip is configured with (its find-links and index URLs), so both install the
same wheels: here, the CPU build of torch that lies on the machine's disk."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nox
import nox.command

nox.options.default_venv_backend = "uv|virtualenv"  # uv when installed, else virtualenv + pip
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["lint"]  # a bare `nox` (README): tests install Debian packages as root

CONSTRAINTS = ("-c", "constraints.txt")


# pip's configuration keys -> the uv variables that name the same package sources
PIP_SOURCES = {
    "find-links": "UV_FIND_LINKS",
    "index-url": "UV_DEFAULT_INDEX",
    "extra-index-url": "UV_INDEX",
}


def pip_sources() -> dict[str, str]:
    """uv's variables for the package sources ``pip config list`` names (any scope), those that
    exist (a ``file://`` index or find-links folder that is absent is left out, as pip ignores
    it with a warning); an already set uv variable wins."""
    try:
        listed = subprocess.run(
            [sys.executable, "-m", "pip", "config", "list"],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return {}
    sources: dict[str, list[str]] = {}
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        option = key.rpartition(".")[2]
        if option in PIP_SOURCES:
            for location in value.strip().strip("'\"").split():
                local = location.removeprefix("file://")
                if "://" in local or Path(local).exists():
                    sources.setdefault(PIP_SOURCES[option], []).append(location)
    chosen = {
        name: " ".join(dict.fromkeys(values))
        for name, values in sources.items()
        if name not in os.environ
    }
    if "UV_INDEX" in chosen:  # pip takes the best version over every index; uv, so told
        chosen.setdefault("UV_INDEX_STRATEGY", "unsafe-best-match")
    return chosen


os.environ.update(pip_sources())
# bytecode written where a session's processes first import a module, even where
# PYTHONDONTWRITEBYTECODE is set (CI's machines): a session's virtualenv is its own, and without
# it every process of the tests compiled torch's and Lightning's sources again (9.5 s against
# 4.7 s to import them). Written at import, not at install (uv's --compile-bytecode): the
# README's first command imports a small part of what it installs (install 2 s and the first
# sweep 10 s longer, against 18 s to install with every module compiled).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def install(session: nox.Session, extras: str = "") -> None:
    session.install(*CONSTRAINTS, "-e", f".[{extras}]" if extras else ".")


# Debian packages of the real components some tests drive, and how to tell one is there
SYSTEM_PACKAGES = {
    "postgresql": lambda: bool(glob.glob("/usr/lib/postgresql/*/bin/initdb")),
    "chromium": lambda: any(shutil.which(name) for name in ("chromium", "chromium-browser")),
    "slurm-wlm": lambda: shutil.which("slurmd") is not None,
}


def provide_system_packages(session: nox.Session, names: tuple[str, ...]) -> list[str]:
    """Install the missing ``names`` with apt-get (one ``update``, then ``install -y``) when root,
    stopping the session when apt-get fails (a broken install is not a skip); returns those
    still missing (not root, or no apt-get), whose tests skip saying so."""
    missing = [name for name in names if not SYSTEM_PACKAGES[name]()]
    if missing and shutil.which("apt-get") and os.geteuid() == 0:
        env = {"DEBIAN_FRONTEND": "noninteractive"}
        session.run("apt-get", "update", external=True, env=env)
        session.run("apt-get", "install", "-y", *missing, external=True, env=env)
        missing = [name for name in missing if not SYSTEM_PACKAGES[name]()]
    if missing:
        session.warn(f"missing and not installable here (needs root apt-get): {', '.join(missing)}")
    return missing


def marker_expressions(posargs: list[str]) -> tuple[list[str], list[str]]:
    """The ``-m EXPR`` expressions of ``posargs``, and its other words."""
    words, chosen, rest = iter(posargs), [], []
    for word in words:
        if word == "-m":
            chosen.append(next(words, ""))
        elif word.startswith("-m") and len(word) > 2:
            chosen.append(word[2:].lstrip("="))
        else:
            rest.append(word)
    return chosen, rest


def with_marker(posargs: list[str], expression: str) -> list[str]:
    """``posargs`` whose ``-m EXPR`` (if any) is joined with ``expression`` by ``and``."""
    chosen, rest = marker_expressions(posargs)
    return ["-m", " and ".join(f"({part})" for part in [expression, *chosen]), *rest]


def cpu_flags() -> set[str]:
    """This CPU's instruction-set flags (``/proc/cpuinfo``; none elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def held_out_environment(flags: set[str]) -> dict[str, str]:
    """Another CPU than the one the claims were tuned on, on a CPU with ``flags``: oneDNN one
    instruction set narrower (AVX2 where AVX-512 exists, SSE4.1 on AVX2), ATen's and the CPU
    tiles' scalar kernels (``default``), and 3 threads, an odd count above this machine's 2
    cores (oneDNN splits work and sizes scratchpads by thread), in the leg's pytest and every
    process it starts: torch takes MKL's thread count, which MKL caps at the cores unless
    ``MKL_DYNAMIC`` is false (3 gave 2 threads on 2 cores)."""
    environment = {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "3", "MKL_DYNAMIC": "FALSE"}
    if "avx512f" in flags:
        environment["ONEDNN_MAX_CPU_ISA"] = "AVX2"
    elif "avx2" in flags:
        environment["ONEDNN_MAX_CPU_ISA"] = "SSE41"
    return environment


def held_out_marker(posargs: list[str]) -> list[str]:
    """``posargs`` for the held-out leg: its tests (``held_out``, not quiet, and not slow unless
    marked ``leg``) that the user's ``-m`` selects when it reads each of them as ``slow``. The
    leg is slow work (a second run), so the fast loop ``-m "not slow"`` leaves it out, and a
    bare run keeps it."""
    chosen, rest = marker_expressions(posargs)
    as_slow = [re.sub(r"\bslow\b", "held_out", part) for part in chosen]
    parts = ["held_out and not quiet and (leg or not slow)", *as_slow]
    return ["-m", " and ".join(f"({part})" for part in parts), *rest]


@nox.session
def tests(session: nox.Session) -> None:
    """The whole suite against the real components: PostgreSQL and Chromium from Debian
    (installed when missing and root), the postgres, tensorboard and browser extras. A skip
    names what this machine cannot provide (data tests: ../shared/datasets). The fast loop:
    ``nox -s tests -- -m "not slow"``. The held-out leg then runs the claims marked ``held_out``
    (the memory model, the CPU kernels, the tiles) again on another CPU than they were tuned
    on (``held_out_environment``). Tests marked ``quiet`` (timing checks that need the machine
    to themselves) run last, alone, never beside the two workers."""
    provide_system_packages(session, ("postgresql", "chromium"))
    install(session, "test,postgres,tensorboard,browser")
    # the documents' commands are `nox -s docs` (their ten minutes would take CI past 30)
    # --durations: the slowest tests in the CI log, where the time goes; worksteal: a worker
    # that runs out of tests takes queued ones from the other (no idle worker at the end)
    marked = with_marker(session.posargs, "not quiet and not docs")
    session.run("pytest", "-n", "2", "--dist", "worksteal", "--durations", "60", *marked)
    # one process: its threads are the environment's 3, not a worker's 1 (tests/conftest.py);
    # exit status 5: no test of the leg was selected (e.g. -m "not slow")
    environment = held_out_environment(cpu_flags())
    start = time.perf_counter()
    held_out = held_out_marker(session.posargs)
    session.run("pytest", "-p", "no:xdist", *held_out, env=environment, success_codes=[0, 5])
    setup = " ".join(f"{name}={value}" for name, value in environment.items())
    seconds, load = time.perf_counter() - start, os.getloadavg()[0]
    session.log(f"held-out leg ({setup}): {seconds:.0f} s, load average {load:.2f}")
    # exit status 5: no quiet test was selected (e.g. -m "not slow")
    quiet = with_marker(session.posargs, "quiet")
    session.run("pytest", "-p", "no:xdist", *quiet, success_codes=[0, 5])


@nox.session
def docs(session: nox.Session) -> None:
    """Executes every command and snippet of README.md and docs/ as written, with a tiny budget
    appended, on ../shared/datasets (tests/test_docs.py; skipped without it). Each document's
    commands run in order in one folder; what needs SLURM, CUDA or a named server is listed
    with the reason."""
    install(session, "test,tensorboard")
    session.run("pytest", "-n", "2", "-m", "docs", "tests/test_docs.py", *session.posargs)


@nox.session
def tests_lowest(session: nox.Session) -> None:
    """The tests against the lowest version of every direct dependency pyproject.toml allows.

    uv resolves ``--resolution lowest-direct``; torch stays at constraints.txt's pin, installed
    first on pip's package sources (the CPU wheel on disk; an older torch from PyPI is a
    multi-GB CUDA build), so torch's own floor is not exercised here (see docs/architecture.md).
    """
    session.install(*CONSTRAINTS, "torch", "uv")
    # nox sets VIRTUAL_ENV for its commands, so uv installs into the session's environment
    session.run(
        "uv", "pip", "install", "--resolution", "lowest-direct", *CONSTRAINTS, "-e", ".[test]"
    )
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    session.install(*CONSTRAINTS, "ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def suite(session: nox.Session) -> None:
    """CPU smoke suite over ../shared/datasets (3 encoders, 5 steps a run) that writes the
    tables into runs/suite-smoke; skipped when the datasets folder is absent."""
    data = "../shared/datasets"
    if not os.path.isdir(data):
        session.skip(f"{data} not found: the smoke suite needs the real benchmark files")
    install(session)
    session.run(
        "sanbench",
        "suite",
        "--tasks",
        "trec,sst2,cr,sick",
        "--encoders",
        "multi_cnn,bi_blosan,mtsa",
        "--seeds",
        "1",
        "--folds",
        "2",
        "--data-dir",
        data,
        "--embeddings",
        f"{data}/glove/glove.6B.50d.subset.txt",
        "--out",
        "runs/suite-smoke",
        "--max-steps",
        "5",
        "--limit-train-batches",
        "5",
        *session.posargs,
        env={"OMP_NUM_THREADS": "2"},
    )


@nox.session
def reproduce(session: nox.Session) -> None:
    """The accuracy reproduction (Bi-BloSAN Table 6 x six encoders, the cpu preset: 3 runs a
    cell, hours on 2 cores, 7 h at worst; resumes) into runs/reproduce; skipped when
    ../shared/datasets is absent."""
    data = "../shared/datasets"
    if not os.path.isdir(data):
        session.skip(f"{data} not found: the reproduction needs the real benchmark files")
    install(session)
    session.run(
        "sanbench", "reproduce", "--data-dir", data,
        "--embeddings", f"{data}/glove/glove.6B.50d.subset.txt", "--out", "runs/reproduce",
        *session.posargs,
    )  # fmt: skip


@nox.session
def profile(session: nox.Session) -> None:
    """Quick profiling sweep on CPU (the papers' figure encoders) + report; prints index.html."""
    install(session)
    session.run("sanbench", "profile", "--preset", "quick", "--device", "cpu", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """The device it runs on (said first), then: predicting every figure encoder at L=384 must
    take under 20 s; the paper-preset profiling sweep (L = 16..384, batch 64, dim 300) with
    DiSAN's chunked attention beside naive; the GPU checks (``harness.profiling.gpu_checks``)
    and the Lightning overhead. A sweep with failed points (``profile`` exits 1) does not skip
    the later steps, nor does a prediction over its target: the session fails at the end with
    each of them."""
    install(session)
    # the device it runs on (a CPU wheel: CPU, said here); what only a GPU can confirm of the
    # CUDA path (issue 57) is checked after the sweep (without CUDA each check says why not)
    session.run("python", "-m", "harness.profiling.gpu_checks", "device")
    # memory and FLOPs of every figure encoder at the papers' longest shape, [64, 384, 300], on
    # meta tensors: the target is under 20 s for the whole command (torch import included; the
    # CPU kernels' inside memory is modelled from calls at small lengths, docs/benchmarks.md)
    out = Path("runs/bench-predict-384")
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    session.run(
        "sanbench", "profile", "--predict-only", "--predict-lengths", "384", "--no-report",
        "--out", str(out),
    )  # fmt: skip
    seconds, load = time.perf_counter() - start, os.getloadavg()[0]
    result = f"predict-only at L=384: {seconds:.1f} s (target < 20 s; load average {load:.2f})"
    session.log(result)
    # a slow prediction fails the session at its end: it never skips the sweep or the GPU checks
    failed = [result] if seconds >= 20 else []
    # the papers' figure encoders as the figures ran them and, beside the papers' naive DiSAN,
    # its exact chunked attention (the encoders' default)
    encoders = "bilstm,bigru,bisru,multi_cnn,hrchy_cnn,multi_head,disan:attention_impl=naive"
    encoders += ",bi_blosan:attention_impl=naive,mtsa,disan:attention_impl=chunked"
    words = list(session.posargs)
    out = next((word.partition("=")[2] for word in words if word.startswith("--out=")), None)
    if "--out" in words[:-1]:
        out = words[words.index("--out") + 1]
    if out is None:
        out = time.strftime("runs/bench-paper-%Y%m%d-%H%M%S")
        words += ["--out", out]
    sweep = ["sanbench", "profile", "--preset", "paper", "--device", "auto", "--encoders", encoders]
    failed += run_to_the_end(session, [*sweep, *words], "the sweep has failed points")
    checks = ["python", "-m", "harness.profiling.gpu_checks", "checks", out]
    failed += run_to_the_end(session, checks, "a GPU check failed")
    # training steps/s through the Lightning harness vs a bare PyTorch loop, same data, one process
    session.run("python", "-m", "harness.profiling.overhead")
    if failed:
        session.error("; ".join(failed))


def run_to_the_end(session: nox.Session, command: list[str], what: str) -> list[str]:
    """Run ``command``; [] when it exits 0, [``what`` and its status] when it exits 1 (the
    session goes on and fails at its end); any other status (bad input 2, Ctrl-C 130) stops
    the session at once."""
    try:
        session.run(*command)
    except nox.command.CommandFailed as failure:
        if failure.return_code != 1:
            raise
        return [f"{what} ({command[0]} ... exited 1)"]
    return []


@nox.session
def tune(session: nox.Session) -> None:
    """Optuna studies on CPU: block-length-memory, then a short TREC block-length study."""
    install(session)
    env = {"OMP_NUM_THREADS": "2"}
    out = "runs/nox-tune"
    storage = f"sqlite:///{out}/optuna.db"
    session.run(
        "sanbench", "tune", "--study", "block-length-memory", "--lengths", "32,64,128",
        "--storage", storage, "--out", f"{out}/block-length-memory", env=env,
    )  # fmt: skip
    datasets = Path("../shared/datasets")
    if not (datasets / "kim2014").is_dir():
        session.log(f"skipping the TREC block-length study: {datasets}/kim2014 is absent")
        return
    session.run(
        "sanbench", "tune", "--study", "block-length", "--task", "trec",
        "--encoder", "bi_blosan", "--trials", "6", "--data-dir", str(datasets),
        "--embeddings", str(datasets / "glove" / "glove.6B.50d.subset.txt"),
        "--max-epochs", "1", "--limit-train-batches", "30",
        "--storage", storage, "--out", f"{out}/block-length-trec", env=env,
    )  # fmt: skip


@nox.session
def browser(session: nox.Session) -> None:
    """Opt-in: the report of tests/reports/fixtures in headless Chromium (Debian's, installed
    when missing and root) driven by Playwright: console errors, exceptions, failed loads,
    broken images; the screenshots stay in runs/report-browser."""
    if provide_system_packages(session, ("chromium",)):
        session.skip("no Chromium to check the report with")
    install(session, "test,browser")
    pages = sorted(glob.glob("tests/reports/test_*browser.py"))
    session.run(
        "pytest", "-p", "no:xdist", "--basetemp", "runs/report-browser", *pages, *session.posargs
    )  # fmt: skip


@nox.session
def slurm(session: nox.Session) -> None:
    """Opt-in: a one-node SLURM from Debian's slurm-wlm (tools/one_node_slurm.sh), then a 4-cell
    suite and a part of the reproduction (SST-2 x Multi-CNN, 3 seeds as 2 jobs) on the test
    fixtures through ``--launcher slurm``; the daemons are stopped after."""
    if provide_system_packages(session, ("slurm-wlm",)):
        session.skip("no SLURM to run the suite through")
    install(session)
    cluster, out = Path("runs/slurm-cluster").resolve(), Path("runs/slurm-suite")
    fixtures = "tests/datamodules/fixtures"
    session.run("tools/one_node_slurm.sh", "start", str(cluster), external=True)
    try:
        session.run(
            "sanbench", "suite", "--tasks", "sst2,sst1", "--encoders", "multi_cnn,bilstm",
            "--seeds", "1", "--data-dir", fixtures,
            "--embeddings", f"{fixtures}/vectors/tiny.glove.txt", "--out", str(out),
            "--max-steps", "2", "--limit-train-batches", "2",
            "--launcher", "slurm", "--slurm-cpus", "1", "--slurm-time", "10",
            env={"SLURM_CONF": str(cluster / "slurm.conf"), "OMP_NUM_THREADS": "1"},
        )  # fmt: skip
        rows = "".join(path.read_text() for path in out.glob("results-*-of-*.csv"))
        if rows.count(",ok,") != 4:
            session.error(f"expected 4 ok cells in {out}/results-*.csv:\n{rows}")
        part = Path("runs/slurm-reproduce")  # a part of the reproduction: SST-2 x Multi-CNN
        session.run(
            "sanbench", "reproduce", "--tasks", "sst2", "--encoders", "multi_cnn",
            "--data-dir", f"{fixtures}/kim2014",
            "--embeddings", f"{fixtures}/vectors/tiny.glove.txt",
            "--out", str(part), "--trainer.max_steps", "2", "--trainer.limit_train_batches", "2",
            "--launcher", "slurm", "--jobs", "2", "--slurm-cpus", "1", "--slurm-time", "10",
            env={"SLURM_CONF": str(cluster / "slurm.conf")},
        )  # fmt: skip
        if not (part / "reproduction" / "reproduction.md").is_file():
            session.error(f"no reproduction tables in {part}/reproduction/")
    finally:
        session.run("tools/one_node_slurm.sh", "stop", str(cluster), external=True)
