"""One run folder per configuration: ``fit_config.yaml`` says which run a folder holds.

A folder is resumed only by the configuration that made it; another one is refused (with the
differing keys) unless ``overwrite`` deletes the folder first. ``overwrite`` deletes only a
folder sanbench made as a run folder: one holding the marker file :data:`MARKER` (written
before anything else) and ``fit_config.yaml``. Anything else is refused and left untouched.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from harness.errors import InputError
from harness.training.config import dotted

FILE_NAME = "fit_config.yaml"
MARKER = ".sanbench-run"  # "this folder is a run folder sanbench made"; --overwrite needs it
# keys that do not change what a run computes: a resume may change them
NOT_COMPARED = ("out", "data.data_dir", "data.num_workers", "data.cache_dir",
                "trainer.enable_progress_bar", "trainer.log_every_n_steps", "trainer.logger",
                "run.checkpoint_every_minutes", "run.checkpoint_every_n_steps")  # fmt: skip


class RunFolderError(InputError):
    """``--out`` holds another run."""


def _comparable(fit_config: dict[str, Any]) -> dict[str, Any]:
    sections = {k: v for k, v in fit_config.items() if isinstance(v, dict)}
    flat = {k: v for k, v in fit_config.items() if k not in sections} | dotted(sections)
    kept = {k: v for k, v in flat.items() if k not in NOT_COMPARED}
    if kept.get("data.embeddings"):  # the same vectors may live at another path elsewhere
        kept["data.embeddings"] = Path(str(kept["data.embeddings"])).name
    return kept


def _differences(saved: dict[str, Any], wanted: dict[str, Any]) -> list[str]:
    keys = sorted(set(saved) | set(wanted))
    return [
        f"{key}: {saved.get(key)!r} there, {wanted.get(key)!r} now"
        for key in keys
        if saved.get(key) != wanted.get(key)
    ]


def is_run_folder(folder: Path) -> bool:
    """True when sanbench made ``folder`` as a run folder (its marker and fit config)."""
    return (
        folder.is_dir()
        and not folder.is_symlink()
        and (folder / MARKER).is_file()
        and (folder / FILE_NAME).is_file()
    )


def _delete_run_folder(out_dir: Path) -> None:
    """Delete ``out_dir`` for ``--overwrite`` if sanbench made it as a run folder (an empty
    folder is kept as it is); anything else raises :class:`RunFolderError`, nothing touched."""
    if not (out_dir.exists() or out_dir.is_symlink()):
        return
    if out_dir.is_dir() and not out_dir.is_symlink() and not any(out_dir.iterdir()):
        return
    if not is_run_folder(out_dir):
        raise RunFolderError(
            f"{out_dir} was not made by sanbench as a run folder (it lacks {MARKER} or "
            f"{FILE_NAME}), so --overwrite does not delete it; nothing was touched. "
            "Choose another --out, or delete it yourself."
        )
    shutil.rmtree(out_dir)


def prepare_run_folder(out_dir: Path, text: str, overwrite: bool, writer: bool) -> None:
    """Make ``out_dir`` ready for the run whose fit config is ``text``, or raise
    :class:`RunFolderError`.

    ``writer`` is False on every process but rank 0 of a distributed run: they only check.
    """
    if overwrite and not writer:
        return  # rank 0 deletes and rewrites the folder
    if overwrite:
        _delete_run_folder(out_dir)
    saved_path = out_dir / FILE_NAME
    if saved_path.exists():
        saved = yaml.safe_load(saved_path.read_text()) or {}
        differences = _differences(_comparable(saved), _comparable(yaml.safe_load(text)))
        if differences:
            raise RunFolderError(
                f"{out_dir} holds another run ({'; '.join(differences)}). Choose another --out, "
                "or add --overwrite to delete that run and start this one."
            )
        return
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise RunFolderError(
            f"{out_dir} is not empty and has no {FILE_NAME}, so it is not a sanbench fit folder "
            "this run could resume. Choose another --out (a new or empty folder)."
        )
    if writer:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / MARKER).write_text(
            "a sanbench run folder: sanbench fit --overwrite may delete it\n"
        )
        tmp = saved_path.with_name(f".{FILE_NAME}.tmp")
        tmp.write_text(text)
        tmp.replace(saved_path)
