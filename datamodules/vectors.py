"""Pretrained word vectors (GloVe / word2vec text, optionally gzipped) with a parse cache.

The cache key is the SHA-256 of the file's bytes: exact (a replaced or edited file never
hits a stale entry, copies and renames share the entry) and cheap next to parsing: hashing
runs at about 1 GB/s, parsing text vectors at a few MB/s.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from datamodules.errors import DataFormatError, shorten

CACHE_ENV = "SANBENCH_CACHE"


@dataclass
class Vectors:
    """Words (``index``: word -> row) and their vectors ``matrix`` float32 [N, D]."""

    index: dict[str, int]
    matrix: np.ndarray

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def row(self, word: str) -> int | None:
        """Row of ``word``, falling back to its lowercase form (GloVe 6B is lowercased)."""
        found = self.index.get(word)
        return self.index.get(word.lower()) if found is None else found


def cache_dir(explicit: Path | str | None = None) -> Path:
    """``explicit``, else ``$SANBENCH_CACHE/vectors``, else ``~/.cache/sanbench/vectors``."""
    if explicit is not None:
        return Path(explicit)
    root = os.environ.get(CACHE_ENV)
    return (Path(root) if root else Path.home() / ".cache" / "sanbench") / "vectors"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def _bad(path: Path, number: int, expected: str, found: str) -> DataFormatError:
    hint = "use GloVe or word2vec text format: 'word v1 ... vD' per line, optional 'N D' header"
    return DataFormatError(path, number, expected, found, hint)


def parse_vectors(path: Path) -> tuple[list[str], np.ndarray]:
    """Parse a text vectors file; the dimension is inferred, a ``N D`` header is skipped.

    Words may contain spaces (GloVe 840B does): the last D fields are the vector. The first
    occurrence of a repeated word wins.
    """
    with path.open("rb") as probe:
        opener = gzip.open if probe.read(2) == b"\x1f\x8b" else open
    words: list[str] = []
    values: list[str] = []
    lines: list[int] = []
    seen: set[str] = set()
    dim = 0
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                found = f"undecodable byte 0x{raw[error.start]:02x}"
                raise _bad(path, number, "UTF-8 text", found) from None
            parts = line.rstrip().split(" ")
            if number == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                continue  # word2vec header "count dim"
            if dim == 0:
                dim = len(parts) - 1
                if dim < 1:
                    raise _bad(path, number, "a word and its vector", shorten(line))
            if len(parts) <= dim:
                found = f"{len(parts) - 1} values in {shorten(line)}"
                raise _bad(path, number, f"a word and {dim} values", found)
            word = " ".join(parts[:-dim])
            if word not in seen:
                seen.add(word)
                words.append(word)
                lines.append(number)
                values += parts[-dim:]
    if not words:
        raise _bad(path, 1, "at least one vector", "an empty file")
    try:
        matrix = np.array(values, dtype=np.float32).reshape(len(words), dim)
    except ValueError:
        bad = next(i for i, value in enumerate(values) if not _is_float(value))
        raise _bad(path, lines[bad // dim], f"{dim} numbers after the word", values[bad]) from None
    return words, matrix


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_vectors(path: Path | str, cache: Path | str | None = None) -> Vectors:
    """Vectors of ``path``, parsed once and then read from ``cache_dir(cache)``."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"vectors file {path} does not exist (check --embeddings)")
    folder = cache_dir(cache)
    key = file_sha256(path)
    matrix_file, words_file = folder / f"{key}.npy", folder / f"{key}.words.json"
    if matrix_file.is_file() and words_file.is_file():
        words = json.loads(words_file.read_text(encoding="utf-8"))
        matrix = np.load(matrix_file, mmap_mode="r")
    else:
        words, matrix = parse_vectors(path)
        folder.mkdir(parents=True, exist_ok=True)
        for target, write in (
            (matrix_file, lambda f: np.save(f, matrix)),
            (words_file, lambda f: f.write(json.dumps(words).encode("utf-8"))),
        ):
            temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
            with temporary.open("wb") as handle:
                write(handle)
            os.replace(temporary, target)
    return Vectors({word: row for row, word in enumerate(words)}, matrix)
