"""A suite's overrides (its manifest's ``overrides``, fit's dotted keys) and a fit's config as
their pages say them: the training budget apart from the other options, a class as
``torch.optim.SGD(lr=0.05)``."""

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
    budget = {key: value_text(value) for key, value in merged.items() if _budget(key)}
    others = {key: value_text(value) for key, value in merged.items() if not _budget(key)}
    return budget, others


def _budget(key: str) -> bool:
    return key.removeprefix("trainer.") in BUDGET_KEYS


def value_text(value: Any) -> str:
    """``Class(key=value, ...)`` for a class entry (a callback, an optimizer), lists and
    mappings in brackets, else str: a config value as every page says it."""
    if isinstance(value, dict) and "class_path" in value:
        arguments = (value.get("init_args") or {}).items()
        shown = ", ".join(f"{key}={value_text(argument)}" for key, argument in arguments)
        return f"{value['class_path']}({shown})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(value_text(entry) for entry in value) + "]"
    return str(value)
