"""The reproduction preset's grid and its input errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from harness.cli import main
from harness.reproduce.preset import PAPER_PRESET, Preset


def test_paper_preset_covers_table_6_with_three_runs_per_cell() -> None:
    # Bi-BloSAN Table 6's six tasks; the encoders of its rows and MTSA Table 5's we register
    assert PAPER_PRESET.tasks == ("cr", "mpqa", "subj", "trec", "sst1", "sst2")
    assert {"bilstm", "multi_cnn", "multi_head", "disan", "bi_blosan", "mtsa"} <= set(
        PAPER_PRESET.encoders
    )
    grid = PAPER_PRESET.grid()
    cells = Counter((run.task, run.encoder) for run in grid)
    assert len(cells) == 36 and set(cells.values()) == {3}
    cr = sorted(run.replicate for run in grid if (run.task, run.encoder) == ("cr", "disan"))
    trec = sorted(run.replicate for run in grid if (run.task, run.encoder) == ("trec", "disan"))
    assert cr == ["fold0", "fold1", "fold2"] and trec == ["seed0", "seed1", "seed2"]


def test_preset_round_trips_through_json_fields() -> None:
    tiny = Preset(tasks=("cr",), encoders=("mtsa",), runs=2, overrides={"trainer.max_steps": 3})
    assert Preset.from_dict(tiny.to_dict()) == tiny


def test_bad_inputs_fail_fast_with_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"--data-dir .*missing: no such folder"):
        main(["reproduce", "--data-dir", str(tmp_path / "missing"), "--out", str(tmp_path)])
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("not a vector file\n")
    with pytest.raises(SystemExit, match=r"vectors\.txt, line 1: expected GloVe text"):
        main(["reproduce", "--data-dir", str(tmp_path), "--embeddings", str(vectors)])
    with pytest.raises(SystemExit, match=r"manifest\.json not found; run first"):
        main(["reproduce", "--out", str(tmp_path / "none"), "--tables-only"])
