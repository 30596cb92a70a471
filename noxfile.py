"""nox sessions. Every session installs torch through constraints.txt (the CPU build CI has)."""

from __future__ import annotations

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
