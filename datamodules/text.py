"""Reading text files line by line, as distributed: BOM, CRLF and a declared encoding."""

from __future__ import annotations

import codecs
from pathlib import Path

from datamodules.errors import Problems

# Files that Kim (2014) and SentEval distribute in Windows-1252 (MR, SUBJ, TREC train; byte
# 0x85 is "…" there, not a line break). Without an explicit encoding they are read as UTF-8
# when they are valid UTF-8 (a re-encoded copy), else as Windows-1252; every other file is
# UTF-8 or an error naming each undecodable line.
RELEASED_IN_CP1252 = frozenset(
    {
        "TREC.train.all",
        "subj.all",
        "rt-polarity.all",
        "train_5500.label",
        "subj.subjective",
        "subj.objective",
        "rt-polarity.neg",
        "rt-polarity.pos",
    }
)


def encodings_for(path: Path, encoding: str | None) -> tuple[str, ...]:
    """Encodings to try for ``path``: ``encoding`` when given, else UTF-8 (and the release's)."""
    if encoding is not None:
        return (encoding,)
    return ("utf-8", "cp1252") if path.name in RELEASED_IN_CP1252 else ("utf-8",)


def _undecodable(path: Path, raw: bytes, encoding: str) -> None:
    """Raise a DataFormatError naming every line of ``raw`` that ``encoding`` cannot decode."""
    problems = Problems(path)
    for number, line in enumerate(raw.split(b"\n"), start=1):
        try:
            line.decode(encoding)
        except UnicodeDecodeError as error:
            problems.add(
                number,
                f"text in {encoding}",
                f"byte 0x{line[error.start]:02x} at column {error.start + 1}",
                "pass the file's encoding with --encoding (e.g. cp1252 or latin-1), or "
                f"re-encode it: iconv -f cp1252 -t utf-8 {path.name}",
            )
    problems.raise_any()


def read_lines(path: Path, encoding: str | None = None) -> list[str]:
    """Lines of ``path`` without BOM and line endings (``\\n`` or ``\\r\\n`` only).

    Line ``i`` of the file is element ``i - 1``. ``encoding`` None: see
    :data:`RELEASED_IN_CP1252`. Raises :class:`DataFormatError` listing the undecodable lines.
    """
    raw = path.read_bytes()
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    candidates = encodings_for(path, encoding)
    text = None
    for candidate in candidates:
        try:
            text = raw.decode(candidate)
            break
        except UnicodeDecodeError:
            continue
    if text is None:
        _undecodable(path, raw, candidates[-1])
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
