"""Reading text files line by line, as distributed: BOM, CRLF and a declared encoding."""

from __future__ import annotations

import codecs
import warnings
from collections.abc import Iterator
from pathlib import Path

from datamodules.errors import DataFormatError, Problems, listed_lines

# Files that Kim (2014) and SentEval distribute in Windows-1252 (MR, SUBJ, TREC train; byte
# 0x85 is "…" there, not a line break). Without an explicit encoding they are read as UTF-8
# when they are valid UTF-8 (a re-encoded copy), else as Windows-1252 with a
# ``ReleaseEncodingWarning`` naming the lines; every other file is UTF-8 or an error naming
# each undecodable line.
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


# byte-order marks of the encodings that are not UTF-8 -> the codec that reads them (UTF-32's
# first: UTF-32-LE's mark begins with UTF-16-LE's)
MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32 (little-endian)"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32 (big-endian)"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16 (little-endian)"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16 (big-endian)"),
)


def marked_encoding(path: Path) -> str | None:
    """The codec a file's byte-order mark names when it is UTF-16's or UTF-32's, else None."""
    with path.open("rb") as file:
        start = file.read(4)
    return next((codec for mark, codec, _ in MARKS if start.startswith(mark)), None)


class ReleaseEncodingWarning(UserWarning):
    """A file of :data:`RELEASED_IN_CP1252` was read as Windows-1252 without ``--encoding``:
    said once per file by a command (``harness.quiet``), by the first of its jobs to read it."""

    ONCE_PER_MESSAGE = True


def _undecodable_lines(raw: bytes, encoding: str) -> Iterator[tuple[int, bytes, int]]:
    """(1-based line number, line, column of the first bad byte) of every line ``encoding``
    cannot decode."""
    for number, line in enumerate(raw.split(b"\n"), start=1):
        try:
            line.decode(encoding)
        except UnicodeDecodeError as error:
            yield number, line, error.start


def _undecodable(path: Path, raw: bytes, encoding: str, problems: Problems) -> None:
    """Add to ``problems`` every line of ``raw`` that ``encoding`` cannot decode."""
    for number, line, start in _undecodable_lines(raw, encoding):
        problems.add(
            number,
            f"text in {encoding}",
            f"byte 0x{line[start]:02x} at column {start + 1}",
            "pass the file's encoding with --encoding (e.g. cp1252 or latin-1), or "
            f"re-encode it: iconv -f cp1252 -t utf-8 {path.name}",
        )


_announced: set[Path] = set()  # files whose release encoding this process has announced


def _announce_release_encoding(path: Path, raw: bytes) -> None:
    """Once per file and process: a command reads a file for each stage, trial or run."""
    if path.resolve() in _announced:
        return
    _announced.add(path.resolve())
    numbers = [number for number, _, _ in _undecodable_lines(raw, "utf-8")]
    warnings.warn(
        f"{path}: {len(numbers)} line(s) not UTF-8 ({listed_lines(numbers)}); read as "
        "Windows-1252, the encoding Kim (2014) and SentEval release this file in; pass "
        "--encoding to choose one",
        ReleaseEncodingWarning,
        stacklevel=3,
    )


def known_encoding(encoding: str | None, problems: list[str]) -> str | None:
    """``--encoding``'s check for every command that reads text: the codec's own name of
    ``encoding`` (``Windows-1252`` -> ``cp1252``; None stays None), or, for a name Python has
    no codec for, or whose codec is not of text (``rot13``, ``base64``: bytes.decode refuses
    them), ``encoding`` as given and the problem added to ``problems``."""
    if encoding is None:
        return None
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        problems.append(f"--encoding {encoding}: unknown encoding; e.g. utf-8, cp1252, latin-1")
        return encoding
    try:  # (an empty input is decoded without asking the codec)
        b"a".decode(name)
    except LookupError:
        problems.append(
            f"--encoding {encoding}: not a text encoding (a codec of bytes); e.g. utf-8, cp1252"
        )
        return encoding
    except UnicodeError:  # a text codec that wants more bytes (utf-16, utf-32)
        pass
    return name


def line_count(path: Path, encoding: str | None = None) -> int | None:
    """At least the lines :func:`read_lines` gives of ``path`` (as many, where each encoding it
    tries writes a line end as the byte ``\\n``): the file's ``\\n`` bytes, and one more for a
    last line without one, counted in blocks with nothing decoded. None when an encoding to
    try writes ``\\n`` without that byte (EBCDIC's) or is unknown."""
    try:
        if not all(b"\n" in "\n".encode(name) for name in encodings_for(path, encoding)):
            return None
    except LookupError:
        return None
    count, last = 0, b"\n"
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            count, last = count + block.count(b"\n"), block[-1:]
    return count + (last != b"\n")


def read_lines(
    path: Path, encoding: str | None = None, problems: Problems | None = None
) -> list[str]:
    """Lines of ``path`` without BOM and line endings (``\\n`` or ``\\r\\n`` only; a bare ``\\r`` is
    an error). A file read as UTF-8 whose byte-order mark is UTF-16's or UTF-32's, or whose
    text holds NUL characters, raises one :class:`DataFormatError` for the file.

    Line ``i`` of the file is element ``i - 1``. ``encoding`` None: UTF-8, or see
    :data:`RELEASED_IN_CP1252` (a ``ReleaseEncodingWarning`` when that fallback is taken).
    Undecodable lines and bare carriage returns are added to ``problems`` (the reader's, so that
    one error lists them beside the file's other bad lines; such a line is read with U+FFFD for
    its bad bytes); without ``problems``, :class:`DataFormatError` lists them here.
    """
    own = problems is None
    problems = Problems(path) if problems is None else problems
    raw = path.read_bytes()
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    candidates = encodings_for(path, encoding)
    _refuse_marked(path, raw, candidates[0])
    text = None
    for candidate in candidates:
        try:
            text = raw.decode(candidate)
            break
        except UnicodeDecodeError:
            continue
    if text is None:
        _undecodable(path, raw, candidates[-1], problems)
        text = raw.decode(candidates[-1], errors="replace")
    elif encoding is None and candidate != "utf-8":
        _announce_release_encoding(path, raw)
    _refuse_nul(path, text, candidates[-1])
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    _refuse_bare_carriage_returns(path, lines, problems)
    if own:
        problems.raise_any()
    return lines


def _refuse_bare_carriage_returns(path: Path, lines: list[str], problems: Problems) -> None:
    """A CR that does not end a line (classic Mac OS line breaks, CR-only files) would glue
    lines into one example: each such line is a problem."""
    for number, line in enumerate(lines, start=1):
        returns = line.count("\r")
        if returns:
            problems.add(
                number,
                "lines ending in LF or CRLF",
                f"{returns} carriage return(s) (CR) inside the line",
                f"convert CR line breaks to LF: tr '\\r' '\\n' < {path.name} > fixed",
            )


def _refuse_marked(path: Path, raw: bytes, encoding: str) -> None:
    """A file whose byte-order mark says UTF-16 or UTF-32, read as UTF-8: one error for the
    file, naming its encoding (each of its lines would be a bad line, or a column missing)."""
    found = next(((codec, name) for mark, codec, name in MARKS if raw.startswith(mark)), None)
    if found is None or codecs.lookup(encoding).name != "utf-8":
        return
    codec, name = found
    raise DataFormatError(
        path,
        None,
        f"text in {encoding}",
        f"{name} text (its byte-order mark)",
        f"pass --encoding {codec}, or re-encode it: iconv -f {codec} -t utf-8 {path.name} > fixed",
    )


def _refuse_nul(path: Path, text: str, encoding: str) -> None:
    """A file whose text holds NUL characters is no text in ``encoding``: UTF-16 or UTF-32
    without a byte-order mark, or not a text file. One error for the file."""
    numbers = [number for number, line in enumerate(text.split("\n"), start=1) if "\0" in line]
    if not numbers:
        return
    raise DataFormatError(
        path,
        None,
        f"text in {encoding}",
        f"NUL characters on {len(numbers)} line(s) ({listed_lines(numbers)})",
        "for UTF-16 or UTF-32 text without a byte-order mark, pass --encoding utf-16-le (or "
        "utf-16-be, utf-32-le, ...); else give a text file",
    )
