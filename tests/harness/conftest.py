"""Tiny TREC-format files (train, test, 6-d vectors) shared by the fit tests."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

WORDS = {
    0: "how why",
    1: "what thing",
    2: "abbreviation stand",
    3: "who person",
    4: "where city",
    5: "many number",
}


@pytest.fixture(scope="session")
def trec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kim2014")
    rng = random.Random(0)
    for split, count in (("train", 120), ("test", 30)):
        lines = []
        for i in range(count):
            label = i % 6
            filler = " ".join(
                rng.choice(["the", "a", "of", "is"]) for _ in range(rng.randint(1, 4))
            )
            lines.append(f"{label} {rng.choice(WORDS[label].split())} {filler} ?")
        (root / f"TREC.{split}.all").write_text("\n".join(lines) + "\n")
    words = sorted({w for v in WORDS.values() for w in v.split()} | {"the", "a", "of", "is", "?"})
    glove = root / "glove.txt"
    glove.write_text(
        "".join(f"{w} {' '.join(str(rng.uniform(-1, 1)) for _ in range(6))}\n" for w in words)
    )
    return root
