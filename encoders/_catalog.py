"""Imports every module of ``encoders.models`` so that its ``@register_encoder`` calls run."""

import importlib
import pkgutil

from encoders import models

for _module in sorted(pkgutil.iter_modules(models.__path__), key=lambda m: m.name):
    importlib.import_module(f"{models.__name__}.{_module.name}")
