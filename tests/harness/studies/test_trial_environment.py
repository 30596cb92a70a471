"""Every trial says where it ran: a training study's from its fit's ``metrics.json``, a
measuring study's (Appendix A's) from the process that measured it."""

from __future__ import annotations

import platform
from pathlib import Path

import torch

from harness.cli import main
from reports.contracts.study import TRIAL_ENVIRONMENT, StudyFolder

COLUMNS = [f"user_attrs_{key}" for key in TRIAL_ENVIRONMENT]


def test_a_measuring_study_records_where_each_trial_ran(tmp_path: Path) -> None:
    """Issue 56 leftovers: the block-length-memory study recorded no environment per trial,
    and its page said "not recorded by this study"."""
    out = tmp_path / "study"
    argv = ["tune", "--study", "block-length-memory", "--lengths", "4", "--batch-size", "2"]
    argv += ["--dim", "8", "--storage", f"sqlite:///{tmp_path / 'study.db'}", "--out", str(out)]
    assert main(argv) == 0
    trials = StudyFolder(out).read_trials()
    assert len(trials) == 3  # r = 2, 3, 4
    recorded = trials[COLUMNS].astype(str).drop_duplicates()
    assert recorded.to_dict("records") == [
        {
            "user_attrs_host": platform.node(),
            "user_attrs_device_name": recorded["user_attrs_device_name"].iloc[0],
            "user_attrs_cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "user_attrs_threads": str(torch.get_num_threads()),
            "user_attrs_torch": torch.__version__,
        }
    ]
    assert recorded["user_attrs_device_name"].iloc[0]
