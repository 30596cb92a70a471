"""Pretrained word vectors (GloVe / word2vec text, optionally gzipped) with a parse cache.

The cache key is the SHA-256 of the file's bytes: exact (a replaced or edited file never
hits a stale entry, copies and renames share the entry) and cheap next to parsing: hashing
runs at about 1 GB/s, parsing text vectors at a few MB/s.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import json
import os
import re
import tempfile
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

from datamodules.cache import cache_folder
from datamodules.errors import DataFormatError, Problems, shorten
from datamodules.paths import expanded

# the random vectors' width without embedding_dim (no vectors file): GloVe 840B/6B 300d's
RANDOM_VECTORS_DIM = 300


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
    return Path(explicit) if explicit is not None else cache_folder("vectors")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


HINT = "use GloVe or word2vec text format: 'word v1 ... vD' per line, optional 'N D' header"
HEAD_LINES = 100  # without a header, D is the most common value count of the first lines
PARSER = "strict1"  # in the cache key: what a laxer parser cached is parsed again


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _header(parts: list[str]) -> tuple[int, int] | None:
    """(count, dim) of a word2vec header line ``N D``, else None."""
    if len(parts) == 2 and all(part.isdigit() for part in parts):
        return int(parts[0]), int(parts[1])
    return None


def _fields(path: Path, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """(line number, space-separated fields) of every line that decodes and has no BOM,
    empty field or empty line; the others are added to ``problems``."""
    with path.open("rb") as probe:
        opener = gzip.open if probe.read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8").rstrip()
            except UnicodeDecodeError as error:
                found = f"undecodable byte 0x{raw[error.start]:02x}"
                problems.add(number, "UTF-8 text", found, HINT)
                continue
            if line.startswith("\ufeff"):
                fix = "remove the byte-order mark (BOM): sed -i '1s/^\\xEF\\xBB\\xBF//' FILE"
                problems.add(number, "no byte-order mark", "a UTF-8 BOM before the word", fix)
                line = line[1:]
            parts = line.split(" ")
            if not line or "" in parts:
                found = "an empty line" if not line else f"an empty field in {shorten(line)}"
                problems.add(number, "fields separated by single spaces", found, HINT)
                continue
            yield number, parts


def _vector_lines(
    path: Path, problems: Problems
) -> tuple[tuple[int, int] | None, int, Iterator[tuple[int, list[str]]]]:
    """The header (or None), the dimension and every vector line's fields."""
    lines = _fields(path, problems)
    head = list(itertools.islice(lines, HEAD_LINES))
    header = _header(head[0][1]) if head and head[0][0] == 1 else None
    if header is not None:
        head = head[1:]
        dim = header[1]
    else:
        counts = Counter(len(parts) - 1 for _, parts in head)
        dim = counts.most_common(1)[0][0] if counts else 0
    return header, dim, itertools.chain(head, lines)


def _value_count(parts: list[str]) -> int:
    """How many fields at the end of ``parts`` are numbers (a word's own fields are not)."""
    count = 0
    while count < len(parts) - 1 and _is_float(parts[-1 - count]):
        count += 1
    return count


def parse_vectors(path: Path) -> tuple[list[str], np.ndarray]:
    """Parse a text vectors file strictly; every bad line is named in one DataFormatError.

    The dimension D is the header's (word2vec ``N D``) or else the most common number of
    values among the first lines. Words may contain spaces (GloVe 840B does) but a word
    never ends in a number: a line whose fields after the word are not exactly D finite
    numbers, a BOM, an empty line or field (doubled spaces) and a header whose N differs
    from the number of vectors are errors. The first occurrence of a repeated word wins.
    """
    problems = Problems(path)
    header, dim, lines = _vector_lines(path, problems)
    words: list[str] = []
    values: list[str] = []
    numbers: list[int] = []
    seen: set[str] = set()
    vector_lines = 0
    for number, parts in lines:
        vector_lines += 1
        count = _value_count(parts) if len(parts) - 1 != dim else dim
        if dim < 1 or count != dim or len(parts) == dim:
            found = f"{count} values in {shorten(' '.join(parts))}"
            problems.add(number, f"a word and {max(dim, 1)} values", found, HINT)
            continue
        word = " ".join(parts[:-dim])
        if word not in seen:
            seen.add(word)
            words.append(word)
            numbers.append(number)
            values += parts[-dim:]
    if header is not None and header[0] != vector_lines:
        found = f"N = {header[0]} but {vector_lines} vector lines (a truncated file?)"
        problems.add(1, "a header 'N D' with N the number of vectors", found, HINT)
    if not words and not problems.count:
        problems.add(None, "at least one vector", "an empty file", HINT)
    matrix = _matrix(values, len(words), dim, numbers, problems)
    problems.raise_any()
    return words, matrix


def vectors_problems(path: Path | str | None) -> list[str]:
    """The lines of :func:`parse_vectors`'s refusal of the file ``path`` ([] for none, or for no
    such file: the options' check names that): a command refusing a data folder before it reads
    anything says them beside it. Until 2026-12-01 reproduce's early refusal of a folder without
    the tasks' files hid a vectors file's bad lines, which the data read had named with it.
    Each line is led by the option naming the file (``--embeddings v.txt: line 2: expected
    ...``), as the data folder's is, so that a config file's is said as written."""
    if path is None or not Path(path).is_file():
        return []
    try:
        parse_vectors(Path(path))
    except DataFormatError as error:
        return led_by_option(error)
    return []


def led_by_option(error: DataFormatError, vectors: Path | str | None = None) -> list[str]:
    """The lines of ``error``, each of the vectors file ``vectors`` (``error``'s own file by
    default: a vectors file's refusal) led by the option naming the file, the other files'
    kept: for :func:`vectors_problems`, and for a command that read the file with its data
    (``data stats``, fit's and every run's read): every command says a bad vectors line in
    the same words."""
    path = str(error.path if vectors is None else vectors)
    return [
        _led_by_option(line, path) if line.startswith(f"{path}:") else line
        for line in str(error).splitlines()
    ]


def _led_by_option(line: str, path: str) -> str:
    """``line`` of a vectors file's refusal (``v.txt:2: expected ...``) led by the option
    naming the file: ``--embeddings v.txt: line 2: expected ...``."""
    rest = line.removeprefix(f"{path}:")
    number = re.match(r"(\d+): ", rest)
    return f"--embeddings {path}: " + (
        f"line {number[1]}: {rest[number.end() :]}" if number else rest.lstrip()
    )


def beside_folder_problems(
    folder: list[str], path: Path | str | None, others: bool = False
) -> list[str]:
    """``folder`` (a data folder's problems, said before anything is read) and, when there is
    one or ``others`` (another problem is said: a config file's unknown key), the lines of
    :func:`vectors_problems` of the file ``path`` beside them: every problem at once, in every
    command and beside any refused option, none hidden by the early refusal (the file alone
    is read with the data, once)."""
    return [*folder, *vectors_problems(path)] if folder or others else []


def _finite32(text: str) -> bool:
    """``text`` is a number that is finite as float32 (``1e39`` is not)."""
    try:
        with np.errstate(over="ignore"):
            return bool(np.isfinite(np.float32(float(text))))
    except ValueError:
        return False


def _matrix(
    values: list[str], rows: int, dim: int, numbers: list[int], problems: Problems
) -> np.ndarray:
    """float32 [rows, dim] of ``values``; a line with a value that is not a finite float32
    number is added to ``problems``."""
    try:
        with np.errstate(over="ignore"):
            matrix = np.array(values, dtype=np.float32).reshape(rows, dim)
    except ValueError:  # some value is not a number: the check below names its lines
        matrix = np.zeros((rows, dim), dtype=np.float32)
        good = np.zeros(rows, dtype=bool)
    else:
        good = np.isfinite(matrix).all(axis=1)
    for row in np.flatnonzero(~good):
        bad = [v for v in values[row * dim : (row + 1) * dim] if not _finite32(v)]
        if bad:
            found = f"{len(bad)} bad value(s): {', '.join(map(shorten, bad[:3]))}"
            problems.add(numbers[row], f"{dim} finite numbers after the word", found, HINT)
    return matrix


class VectorsCacheWarning(UserWarning):
    """The parse cache cannot be written (a read-only ``$SANBENCH_CACHE``): the vectors are
    used all the same, parsed again by every run."""


UNCACHED = (
    "the word-vector cache {folder} cannot be written ({why}): {name} is parsed again by every"
    " run (SANBENCH_CACHE names another cache folder)"
)


def _store(target: Path, write: Callable[[IO[bytes]], object]) -> None:
    """``write`` a new file of a random name beside ``target`` (``O_EXCL``: never an entry that
    exists, never through a symlink), then rename it over ``target``: readers see all or none."""
    descriptor, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
        os.replace(name, target)
    finally:
        Path(name).unlink(missing_ok=True)


def load_vectors(path: Path | str, cache: Path | str | None = None) -> Vectors:
    """Vectors of ``path``, parsed once and then read from ``cache_dir(cache)``."""
    path = expanded(path)
    if not path.is_file():
        raise FileNotFoundError(f"vectors file {path} does not exist (check --embeddings)")
    folder = cache_dir(cache)
    key = f"{file_sha256(path)}-{PARSER}"
    matrix_file, words_file = folder / f"{key}.npy", folder / f"{key}.words.json"
    if matrix_file.is_file() and words_file.is_file():
        words = json.loads(words_file.read_text(encoding="utf-8"))
        matrix = np.load(matrix_file, mmap_mode="r")
    else:
        words, matrix = parse_vectors(path)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _store(matrix_file, lambda handle: np.save(handle, matrix))
            _store(words_file, lambda handle: handle.write(json.dumps(words).encode("utf-8")))
        except OSError as error:
            why = error.strerror or type(error).__name__
            message = UNCACHED.format(folder=folder, why=why, name=path.name)
            warnings.warn(VectorsCacheWarning(message), stacklevel=2)
    return Vectors({word: row for row, word in enumerate(words)}, matrix)
