"""A failed start leaves nothing that blocks the re-run; unreadable checkpoints are bad input;
an interrupted ``predict`` leaves no hidden temporary file."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import yaml
from lightning.pytorch import Callback

from harness.errors import InputError
from harness.outdir import is_lock_file
from harness.training.callbacks.prediction_writers import TestPredictionWriter as PredictionWriter
from harness.training.checkpoint_file import check_readable
from harness.training.fit import run_fit
from harness.training.run_folder import check_run_folder
from harness.training.settings.fit_cli import FitCLI
from harness.training.settings.fit_run import FitRun
from harness.training.settings.task_configs import ConfigError
from tests.harness.problem_lines import files_lines


def test_a_fit_refused_at_start_leaves_no_fit_config(tmp_path: Path, trec_dir: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()  # an existing --out: the CLI's empty-folder cleanup does not apply
    bad = FitRun("trec", "bilstm", trec_dir, out, overrides={"trainer.max_steps": -5})
    with pytest.raises(ConfigError, match="max_steps"):
        run_fit(bad)
    # the next start, with any config, is not refused (the writer lock file is no result)
    assert [path for path in out.iterdir() if not is_lock_file(path)] == []


def test_a_truncated_checkpoint_is_refused_by_name(tmp_path: Path) -> None:
    whole = tmp_path / "whole.ckpt"
    torch.save({"state_dict": {"w": torch.zeros(64, 64)}}, whole)
    check_readable(whole, "fix")
    cut = tmp_path / "cut.ckpt"
    cut.write_bytes(whole.read_bytes()[:-100])
    with pytest.raises(InputError, match=r"cut\.ckpt: not a complete checkpoint .*; fix$"):
        check_readable(cut, "fix")


def test_an_interrupted_prediction_leaves_no_hidden_file(tmp_path: Path) -> None:
    writer = PredictionWriter(tmp_path / "predictions.csv")
    trainer = SimpleNamespace(is_global_zero=True)
    writer.on_predict_epoch_start(trainer, SimpleNamespace(kind="single"))
    (hidden,) = tmp_path.iterdir()  # the writer's own, a random name (issue 54.6)
    assert hidden.name.startswith(".predictions.csv.") and hidden.name.endswith(".tmp")
    writer.on_exception(trainer, SimpleNamespace(kind="single"), KeyboardInterrupt())
    assert list(tmp_path.iterdir()) == []


class FailsAtFirstStep(Callback):
    """A failure inside ``trainer.fit`` before any checkpoint (an encoder's first forward)."""

    def on_train_batch_start(self, *args: object) -> None:
        raise RuntimeError("first step failed")


@pytest.mark.parametrize("existing", [False, True])
def test_a_fit_failing_at_its_first_step_leaves_nothing(
    tmp_path: Path, trec_dir: Path, existing: bool
) -> None:
    """Issue 56 (H11.4): ``fit_config.yaml`` stayed in a folder with no result, and refused a
    corrected re-run as "holds another run"."""
    out = tmp_path / "run"
    if existing:
        out.mkdir()  # given empty: it stays, empty
    run = FitRun("trec", "bilstm", trec_dir, out, overrides={"trainer.max_steps": 2})
    with pytest.raises(RuntimeError, match="first step failed"):
        run_fit(run, callbacks=[FailsAtFirstStep()])
    left = [p for p in out.rglob("*") if not is_lock_file(p)] if out.exists() else []
    assert left == [] and out.exists() == existing
    fixed = FitRun("trec", "bilstm", trec_dir, out, overrides={"trainer.max_steps": 3})
    check_run_folder(out, FitCLI(fixed.args()).config_yaml(), overwrite=False)  # not refused


def test_a_suite_run_that_failed_at_its_first_step_is_tried_again_on_resume(
    tmp_path: Path, trec_dir: Path
) -> None:
    """The suite's ``error.txt`` is the only file such a run leaves: the retry must not take
    the folder for one of the user's."""
    from harness.suite.grid import RunSpec, Shard
    from harness.suite.runner import run_shard

    def failing(run: FitRun) -> dict[str, object]:
        return run_fit(run, callbacks=[FailsAtFirstStep()])

    errors = []
    for _ in range(2):
        summary = run_shard(
            [RunSpec("trec", "multi_cnn", 0, None)],
            shard=Shard(),
            out_dir=tmp_path / "suite",
            fit=failing,
            data_dir=trec_dir,
            embeddings=trec_dir / "glove.txt",
            overrides={"trainer.max_steps": 2},
            log=errors.append,
        )
        assert len(summary.failed) == 1
    failures = [line for line in errors if "failed:" in line]
    assert len(failures) == 2 and all("first step failed" in line for line in failures), errors


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"the cat sat\nanother\n", "a text file (its first line: 'the cat sat')"),
        (b"", "an empty file"),
        (b"\x93NUMPY\x01\x00v\x00", "a NumPy array (.npy, as sanbench encode writes)"),
        (bytes(range(256)), "a binary file of 256 bytes"),
    ],
)
@pytest.mark.parametrize("command", ["predict", "encode"])
def test_a_file_that_is_no_checkpoint_is_named_for_what_it_is(
    command: str, content: bytes, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 (H11.6): ``encode --ckpt SENTENCES.txt`` took 18 s (torch and Lightning
    imported, the model loader started) to say "not a complete checkpoint (truncated ...)";
    now the options' check says it (0.6 s)."""
    from harness.cli import main

    sentences = tmp_path / "sentences.txt"
    sentences.write_bytes(content)
    suffix = ".csv" if command == "predict" else ".npy"
    words = ["--ckpt", str(sentences), "--input", str(sentences), "--out", f"{tmp_path}/o{suffix}"]
    assert main([command, *words]) == 2
    lines = files_lines(capsys.readouterr().err)
    assert lines == [
        f"sanbench {command}: --ckpt {sentences}: {said}, not a checkpoint; "
        "give a checkpoint that sanbench fit wrote (OUT/checkpoints/*.ckpt)"
    ], lines


# --- issue 54: a killed start rerun under another NOT_COMPARED value -------------------------


def _short(trec_dir: Path, out: Path, max_length: int) -> FitRun:
    overrides = {"trainer.max_steps": 2, "trainer.limit_val_batches": 2,
                 "data.max_length": max_length}  # fmt: skip
    return FitRun("trec", "bilstm", trec_dir, out, overrides=overrides)


def test_a_killed_start_rerun_at_another_max_length_records_the_rerun(
    tmp_path: Path, trec_dir: Path
) -> None:
    from harness.training.run_folder import prepare_run_folder

    out = tmp_path / "run"  # a start killed before its first checkpoint: its config and logs
    prepare_run_folder(out, FitCLI(_short(trec_dir, out, 200).args()).config_yaml(), False, True)
    (out / "logs" / "version_0").mkdir(parents=True)
    (out / "logs" / "version_0" / "metrics.csv").write_text("epoch,step\n")
    metrics = run_fit(_short(trec_dir, out, 300))
    saved = yaml.safe_load((out / "fit_config.yaml").read_text())
    assert saved["data"]["max_length"] == metrics["config"]["data"]["max_length"] == 300
    assert metrics["resumes"] == [] and list((out / "logs").iterdir()) == [out / "logs/version_0"]


def test_a_resume_at_another_max_length_is_recorded(tmp_path: Path, trec_dir: Path) -> None:
    out = tmp_path / "run"
    run_fit(_short(trec_dir, out, 200))
    (out / "metrics.json").unlink()  # stopped after its last checkpoint
    metrics = run_fit(_short(trec_dir, out, 300))
    assert yaml.safe_load((out / "fit_config.yaml").read_text())["data"]["max_length"] == 200
    assert metrics["config"]["data"]["max_length"] == 200
    assert metrics["resumes"] == [{"data.max_length": {"there": 200, "now": 300}}]
    assert yaml.safe_load((out / "resumes.yaml").read_text()) == metrics["resumes"]
