"""Paths to the committed fixtures and to the real benchmark files."""

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REAL = Path(__file__).parents[2].parent / "shared" / "datasets"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def real_data() -> Path:
    if not REAL.is_dir():
        pytest.skip(f"real benchmark files not found at {REAL} (see docs/data.md)")
    return REAL


@pytest.fixture(autouse=True)
def _vector_cache(tmp_path, monkeypatch) -> None:
    """Never touch the user's ~/.cache from tests."""
    monkeypatch.setenv("SANBENCH_CACHE", str(tmp_path / "cache"))
