"""Reading text files line by line, as distributed: BOM, CRLF and legacy encodings."""

from __future__ import annotations

import codecs
from pathlib import Path

from datamodules.errors import DataFormatError

UTF8 = ("utf-8",)
# MR, SUBJ and TREC were released in Windows-1252 (e.g. byte 0x85 is an ellipsis there,
# not a line break): try UTF-8 first, then cp1252, and fail on bytes neither can decode.
LEGACY = ("utf-8", "cp1252")


def read_lines(path: Path, encodings: tuple[str, ...] = UTF8) -> list[str]:
    """Lines of ``path`` without BOM and line endings (``\\n`` or ``\\r\\n`` only).

    Line ``i`` of the file is element ``i - 1``. Raises :class:`DataFormatError` naming
    the line of the first undecodable byte when no encoding in ``encodings`` works.
    """
    raw = path.read_bytes()
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    text = None
    first_error: UnicodeDecodeError | None = None
    for encoding in encodings:
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError as error:
            first_error = first_error or error
    if text is None:
        assert first_error is not None
        start = first_error.start
        line = raw[:start].count(b"\n") + 1
        raise DataFormatError(
            path,
            line,
            f"text in {' or '.join(encodings)}",
            f"undecodable byte 0x{raw[start]:02x} at byte offset {start}",
            "Re-encode the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`).",
        )
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
