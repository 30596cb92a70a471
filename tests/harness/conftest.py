"""Fixtures of the harness tests: tiny TREC-format files (train, test, 6-d vectors) shared by the
fit tests, a throw-away PostgreSQL server with fresh databases on it, and the warm server of the
tests' own sanbench commands (``tests/harness/fixtures/warm_commands.py``)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.fixtures import warm_commands
from tests.harness.fixtures.postgres_server import create_database, find_bin_dir, postgres_server

_numbers = itertools.count()
WORDS = {
    0: "how why",
    1: "what thing",
    2: "abbreviation stand",
    3: "who person",
    4: "where city",
    5: "many number",
}


@pytest.fixture(scope="session", autouse=True)
def warm_sanbench() -> Iterator[None]:
    """``warm_commands.run``/``Popen`` fork each command from one server per test process,
    started at the first command under the environment of the session's start; stopped and
    waited for at the session's end."""
    warm_commands.prepare()
    yield
    warm_commands.stop()


@pytest.fixture(scope="session")
def trec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kim2014")
    rng = random.Random(0)
    for split, count in (("train", 120), ("test", 30)):
        lines = []
        for i in range(count):
            label = i % 6
            filler = " ".join(
                rng.choice(["the", "a", "of", "is"]) for _ in range(rng.randint(1, 4))
            )
            lines.append(f"{label} {rng.choice(WORDS[label].split())} {filler} ?")
        (root / f"TREC.{split}.all").write_text("\n".join(lines) + "\n")
    words = sorted({w for v in WORDS.values() for w in v.split()} | {"the", "a", "of", "is", "?"})
    glove = root / "glove.txt"
    glove.write_text(
        "".join(f"{w} {' '.join(str(rng.uniform(-1, 1)) for _ in range(6))}\n" for w in words)
    )
    return root


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """Admin URL of a PostgreSQL server started for this test session (skips without one)."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL binaries not found in /usr/lib/postgresql/*/bin: "
            "apt-get install postgresql (nox -s tests installs it when run as root)"
        )
    pytest.importorskip("psycopg", reason="pip install 'sanbench[postgres]' for the psycopg driver")
    with postgres_server(bin_dir) as url:
        yield url


@pytest.fixture
def postgres_url(postgres_admin_url: str) -> str:
    """URL of a new, empty database: optuna finds no schema there."""
    return create_database(postgres_admin_url, f"study_{next(_numbers)}")
