"""A real ``sanbench fit`` killed with SIGKILL (the OOM killer, a preempted node, a power cut)
after an end-of-epoch or a periodic checkpoint, then resumed by the same command, ends with the
weights and the step count of the same command run without a kill. Dropout is on; one case is a
two-process DDP fit (gloo), whose ranks draw different dropout masks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from tests.harness.training.callbacks.test_stop_on_signal import Progress, _ended, _wait_for

ROOT = Path(__file__).parents[3]
SANBENCH = [sys.executable, "-m", "harness.cli"]


def _words(trec_dir: Path, out: Path, every_n_steps: int | None, *more: str) -> list[str]:
    periodic = ["--run.checkpoint_every_n_steps", str(every_n_steps)] if every_n_steps else []
    return [
        "fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir),
        "--embeddings", str(trec_dir / "glove.txt"), "--out", str(out),
        "--model.hidden_dim", "4", "--model.head_hidden", "8", "--model.dropout", "0.3",
        "--data.batch_size", "4", "--trainer.max_epochs", "3",
        "--trainer.limit_train_batches", "20", *periodic, *more,
    ]  # fmt: skip


def _run(words: list[str]) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # the same kernels in every process
    return subprocess.Popen(
        [*SANBENCH, *words], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=ROOT, env=env, start_new_session=True,  # a kill reaches every rank it starts
    )  # fmt: skip


def _final(out: Path) -> dict:
    return torch.load(out / "checkpoints" / "last.ckpt", weights_only=True)


def _past(process: subprocess.Popen, cpu_seconds: float) -> None:
    """Until ``process`` has computed ``cpu_seconds`` more: a wall time (0.2 s before) is a few
    milliseconds of CPU under load, and a machine a few times faster than this one, idle, ends
    the whole fit in it (here 0.45 CPU-s after the first checkpoint: metrics.json written)."""
    progress = Progress(process)
    progress.check("")
    start = progress.used
    while progress.used < start + cpu_seconds and process.poll() is None:
        time.sleep(0.01)
        progress.check("")


@pytest.fixture(scope="module")
def unkilled(trec_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The final checkpoint of the fit run without a kill, checkpointing every 7 steps: one run
    for both cases below (a checkpoint changes no weight, so the end-of-epoch case's own
    unkilled run ends the same; a process less, ~15 s of CPU)."""
    out = tmp_path_factory.mktemp("unkilled")
    whole = _run(_words(trec_dir, out, 7))
    _, stderr = _ended(whole)
    assert whole.returncode == 0, stderr
    return _final(out)


@pytest.mark.slow  # two real processes each, and the unkilled one
@pytest.mark.parametrize("every_n_steps", [None, 7], ids=["end_of_epoch", "every_7_steps"])
def test_sigkill_after_a_checkpoint_then_the_same_command_ends_as_an_unkilled_run(
    trec_dir: Path, tmp_path: Path, every_n_steps: int | None, unkilled: dict
) -> None:
    out = tmp_path / "killed"
    killed = _run(_words(trec_dir, out, every_n_steps))
    _wait_for(out / "checkpoints" / "last.ckpt", killed)  # the first checkpoint is on disk
    _past(killed, 0.1)  # some steps past it (a kill at any moment: the last checkpoint decides)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.communicate(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    assert not (out / "metrics.json").exists()
    resumed = _run(_words(trec_dir, out, every_n_steps))
    _, stderr = _ended(resumed)
    assert resumed.returncode == 0, stderr
    reference, ours = unkilled, _final(out)
    assert ours["global_step"] == reference["global_step"] == 60
    for key, value in reference["state_dict"].items():
        assert torch.equal(ours["state_dict"][key], value), key


@pytest.mark.slow  # two runs of two processes each, then one more
def test_a_killed_ddp_fit_resumes_each_ranks_dropout_masks(trec_dir: Path, tmp_path: Path) -> None:
    """Rank 1 trains on other batches (other lengths) than rank 0, so its generator is elsewhere:
    a resume that gave it rank 0's state would draw other masks than its unkilled run."""
    ddp = ("--trainer.strategy", "ddp", "--trainer.devices", "2", "--trainer.accelerator", "cpu")
    whole = _run(_words(trec_dir, tmp_path / "whole", 3, *ddp))
    _, stderr = _ended(whole)
    assert whole.returncode == 0, stderr
    out = tmp_path / "killed"
    killed = _run(_words(trec_dir, out, 3, *ddp))
    _wait_for(out / "checkpoints" / "last.ckpt", killed)
    time.sleep(0.5)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.communicate(timeout=60)
    assert not (out / "metrics.json").exists()
    step_at_kill = _final(out)["global_step"]
    resumed = _run(_words(trec_dir, out, 3, *ddp))
    _, stderr = _ended(resumed)
    assert resumed.returncode == 0, stderr
    reference, ours = _final(tmp_path / "whole"), _final(out)
    assert 0 < step_at_kill < ours["global_step"] == reference["global_step"]
    for key, value in reference["state_dict"].items():
        assert torch.equal(ours["state_dict"][key], value), key
