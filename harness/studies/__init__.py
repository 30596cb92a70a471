"""Optuna studies (``sanbench tune``): Bi-BloSAN block length, dropout, accuracy vs memory.

``plans`` defines what a study is, ``registry`` names them, ``storage`` opens the shared
storage, ``workers`` runs one worker's trials against the shared budget, ``outputs`` writes the
CSV, figures, HTML summary and manifest.
"""

from harness.studies.options import StudyOptions
from harness.studies.tune import run_tune

__all__ = ["StudyOptions", "run_tune"]
