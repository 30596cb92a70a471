"""``--encoder NAME`` (repeatable) keeps the contract tests of those encoders only: a plugin's
author checks theirs with ``python -m pytest tests/encoders/test_contract.py --encoder NAME``
(docs/encoders.md, "Adding an encoder")."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--encoder",
        action="append",
        default=[],
        metavar="NAME",
        help="run the encoder contract tests for NAME only (a plugin's encoder too)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    chosen = config.getoption("--encoder")
    if not chosen:
        return
    kept, dropped = [], []
    for item in items:
        params = getattr(item, "callspec", None)
        name = params.params.get("name") if params is not None else None
        (kept if name in chosen else dropped).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept
