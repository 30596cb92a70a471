"""Lightning's ``ModelCheckpoint`` that resumes in a run folder moved since its checkpoint."""

from __future__ import annotations

import os
from typing import Any

from lightning.pytorch.callbacks import ModelCheckpoint


def state_in(state: dict[str, Any], dirpath: str | None) -> dict[str, Any]:
    """A ``ModelCheckpoint`` state saved in another checkpoints folder (the run folder was moved
    since, and resumed with ``--out`` naming where it is now), its paths under ``dirpath``.
    Lightning keeps only ``best_model_path`` of such a state, the old folder's, and drops the best
    score: the next validation became "best" whatever its score, and the test scored another
    checkpoint than the uninterrupted run's."""
    old = state.get("dirpath")
    if not old or not dirpath or old == dirpath:
        return state

    def here(path: Any) -> Any:
        inside = isinstance(path, str) and path.startswith(old + os.sep)
        return os.path.join(dirpath, os.path.relpath(path, old)) if inside else path

    moved = {key: here(value) for key, value in state.items()}
    moved["best_k_models"] = {here(k): v for k, v in (state.get("best_k_models") or {}).items()}
    moved["dirpath"] = dirpath
    return moved


class FolderCheckpoint(ModelCheckpoint):
    """``ModelCheckpoint`` whose state follows its run folder (:func:`state_in`), saved under
    ``ModelCheckpoint``'s key (run folders made before this class resume)."""

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_in(state_dict, self.dirpath))

    @property
    def state_key(self) -> str:
        return super().state_key.replace(type(self).__qualname__, "ModelCheckpoint", 1)
