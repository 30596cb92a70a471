"""The profile report: figures and ``index.html`` from ``profile.csv`` and ``manifest.json``."""

from reports.profile.render import build_report

__all__ = ["build_report"]
