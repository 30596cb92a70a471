"""Fixtures of the harness tests: a throw-away PostgreSQL server and fresh databases on it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.harness.postgres_server import create_database, find_bin_dir, postgres_server

_numbers = itertools.count()


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """Admin URL of a PostgreSQL server started for this test session (skips without one)."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL binaries not found in /usr/lib/postgresql/*/bin: "
            "apt-get install postgresql (or run nox -s tests_postgres, which installs them)"
        )
    pytest.importorskip("psycopg", reason="pip install 'sanbench[postgres]' for the psycopg driver")
    with postgres_server(bin_dir) as url:
        yield url


@pytest.fixture
def postgres_url(postgres_admin_url: str) -> str:
    """URL of a new, empty database: optuna finds no schema there."""
    return create_database(postgres_admin_url, f"study_{next(_numbers)}")
