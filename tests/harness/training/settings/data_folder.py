"""A ``--data-dir`` for tests of the checks fit makes before it reads any data."""

from __future__ import annotations

from pathlib import Path

# a file of each task the tests name (kim2014's names): fit takes the folder as theirs
TASK_FILES = ("TREC.train.all", "custrev.all", "rt-polarity.all")


def data_folder(tmp_path: Path) -> Path:
    """``tmp_path/data`` holding an empty file of TREC, CR and MR each: a folder fit names no
    problem of until it reads it (an empty folder is named beside the other problems)."""
    folder = tmp_path / "data"
    folder.mkdir(exist_ok=True)
    for name in TASK_FILES:
        (folder / name).touch()
    return folder
