"""A suite's overrides (its manifest's ``overrides``, fit's dotted keys) as its page says them:
the training budget apart from the other options, a class as ``torch.optim.SGD(lr=0.05)``."""

from __future__ import annotations

from typing import Any

# the trainer keys of a budget (a suite's --max-steps ...; bare in manifests before 2026-11)
BUDGET_KEYS = ("max_steps", "max_epochs", "limit_train_batches", "limit_val_batches", "max_time")


def overrides_text(overrides: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """The budget's keys and every other option's, each with its value as text."""
    merged: dict[str, Any] = {}
    for key, value in overrides.items():
        section, _, leaf = key.rpartition(".")
        if leaf == "init_args" and f"{section}.class_path" in overrides:
            continue  # said with its class
        if leaf == "class_path":
            value = {"class_path": value, "init_args": overrides.get(f"{section}.init_args")}
            key = section
        merged[key] = value
    budget = {key: _text(value) for key, value in merged.items() if _budget(key)}
    others = {key: _text(value) for key, value in merged.items() if not _budget(key)}
    return budget, others


def _budget(key: str) -> bool:
    return key.removeprefix("trainer.") in BUDGET_KEYS


def _text(value: Any) -> str:
    """``Class(key=value, ...)`` for a class entry, lists and mappings in brackets, else str."""
    if isinstance(value, dict) and "class_path" in value:
        arguments = ", ".join(f"{k}={_text(v)}" for k, v in (value.get("init_args") or {}).items())
        return f"{value['class_path']}({arguments})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_text(entry) for entry in value) + "]"
    return str(value)
