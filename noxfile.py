"""nox sessions. Every session installs torch through constraints.txt (the CPU build CI has)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint"]

CONSTRAINTS = ("-c", "constraints.txt")


def install(session: nox.Session, extras: str = "") -> None:
    session.install(*CONSTRAINTS, "-e", f".[{extras}]" if extras else ".")


@nox.session
def tests(session: nox.Session) -> None:
    """Unit and integration tests (data tests skip when ../shared/datasets is absent)."""
    install(session, "test")
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
def profile(session: nox.Session) -> None:
    """Quick profiling sweep on CPU (the papers' figure encoders) + report; prints index.html."""
    install(session)
    session.run("sanbench", "profile", "--preset", "quick", "--device", "cpu", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Paper-preset profiling sweep (L = 16..384, batch 64, dim 300) on the device present,
    the Lightning overhead, and naive vs chunked attention (memory and time)."""
    install(session)
    session.run("sanbench", "profile", "--preset", "paper", "--device", "auto", *session.posargs)
    # training steps/s through the Lightning harness vs a bare PyTorch loop, same data, one process
    session.run("python", "-m", "harness.training.overhead")
    # DiSAN's attention naive vs chunked (L = 64..384): exact memory, interleaved time ratio
    session.run("python", "-m", "harness.profiling.attention_impls")


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
    """Opt-in: the report of tests/reports/fixtures opened in headless Chromium (Debian's
    chromium, installed when missing): console errors, broken images, screenshots."""
    if shutil.which("chromium") is None:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            session.skip("chromium is missing and cannot be installed here (needs root apt-get)")
        for step in (["install", "-y", "chromium"], ["update"], ["install", "-y", "chromium"]):
            session.run("apt-get", *step, external=True, success_codes=range(256))
            if shutil.which("chromium"):
                break
        if shutil.which("chromium") is None:
            session.skip("apt-get install -y chromium failed: no browser to check the report")
    install(session)
    out = "runs/report-browser"
    fixtures = "tests/reports/fixtures"
    fit_run = f"{fixtures}/suite-tiny/runs/sst2/bi_blosan/seed0"
    session.run("sanbench", "report", fixtures, fit_run, "--out", out)
    session.run(
        "python", "-m", "reports.browser_check", out, "--screenshots", f"{out}/screenshots",
        *session.posargs,
    )  # fmt: skip
