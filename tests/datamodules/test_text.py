"""Reading text files (datamodules.text): a file that is no text in the encoding read is one
error for the file, naming what it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from datamodules.errors import DataFormatError
from datamodules.text import read_lines

LINES = ["text,label", "a café,pos", "a film,neg"]


@pytest.mark.parametrize(
    ("codec", "mark", "codec_named", "named"),
    [
        ("utf-16", b"", "utf-16", "UTF-16 (little-endian)"),  # Python's utf-16 writes its mark
        ("utf-16-be", b"\xfe\xff", "utf-16", "UTF-16 (big-endian)"),
        ("utf-32", b"", "utf-32", "UTF-32 (little-endian)"),
    ],
)
def test_a_utf16_or_utf32_file_is_named_once_and_read_with_its_encoding(
    tmp_path: Path, codec: str, mark: bytes, codec_named: str, named: str
) -> None:
    """Outside check of #54 part B: a UTF-16 CSV read as UTF-8 gave a line of replacement
    characters for a header, and its task "fewer than two labels (none)"."""
    path = tmp_path / "all.csv"
    path.write_bytes(mark + ("\n".join(LINES) + "\n").encode(codec))
    with pytest.raises(DataFormatError) as raised:
        read_lines(path)
    (problem,) = raised.value.problems
    assert (problem.line, problem.found) == (None, f"{named} text (its byte-order mark)")
    assert problem.fix.startswith(f"pass --encoding {codec_named}, or re-encode it: iconv")
    assert read_lines(path, codec_named) == LINES


def test_nul_characters_say_utf16_without_its_mark_or_no_text(tmp_path: Path) -> None:
    path = tmp_path / "all.csv"
    path.write_bytes("\n".join(LINES).encode("utf-16-le"))
    with pytest.raises(DataFormatError) as raised:
        read_lines(path)
    (problem,) = raised.value.problems
    assert (problem.line, problem.expected) == (None, "text in utf-8")
    assert problem.found.startswith("NUL characters on 3 line(s) (line 1, 2, 3)"), problem.found
    assert "--encoding utf-16-le" in problem.fix
    assert read_lines(path, "utf-16-le") == LINES
