"""``sanbench data`` reads the datamodules' committed fixtures, with their vector cache kept in
the test's folder."""

from tests.datamodules.conftest import _vector_cache, fixtures

__all__ = ["_vector_cache", "fixtures"]
