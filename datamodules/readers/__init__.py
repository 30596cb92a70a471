"""Readers for each packaging of the benchmark files, and layout detection."""

from datamodules.readers.base import Example, Layout, SplitData
from datamodules.readers.layouts import LAYOUTS, resolve_layout, split_files

__all__ = ["LAYOUTS", "Example", "Layout", "SplitData", "resolve_layout", "split_files"]
