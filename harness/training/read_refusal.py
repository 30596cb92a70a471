"""How a data read's refusal says its lines: a bad vectors line led by the option or config
key that gave the file, as written, in every command (fit, suite, tune, reproduce, data stats).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from datamodules.errors import DataFormatError
from datamodules.paths import expanded
from harness.command_parser import said_as_written
from harness.errors import FilesProblem


def read_refusal(
    error: DataFormatError,
    vectors: Path | str | None,
    typed: Mapping[str, tuple[str, str]] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> list[str]:
    """The lines of ``error`` (a fit's data and vectors files' bad lines), each of the
    vectors file ``vectors`` led by the option or config key that gave it, as written
    (``--config c.yaml: embeddings v.txt: line 2: ...``), as ``data stats`` and each command's
    check before the read say it (:func:`datamodules.vectors.led_by_option`), not by the path
    read (``/abs/v.txt:2: ...``); ``typed`` and ``aliases`` as :func:`said_as_written` takes
    them. Every problem one line."""
    from datamodules.vectors import led_by_option

    path = None if vectors is None else expanded(vectors)  # as the datamodule reads it
    lines = str(error).splitlines() if path is None else led_by_option(error, path)
    return said_as_written([FilesProblem(line) for line in lines], typed, aliases)
