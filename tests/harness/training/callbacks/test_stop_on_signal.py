"""SIGINT/SIGTERM save a checkpoint and exit 130/143 with the command that resumes; a larger
budget on the same ``--out`` continues a finished run."""

from __future__ import annotations

import contextlib
import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from harness.training.fit import run_fit
from harness.training.run_folder import RunFolderError
from tests.harness.fixtures import warm_commands
from tests.harness.training.test_fit import TINY, tiny_run

SANBENCH = [sys.executable, "-m", "harness.cli"]


def _fit_words(trec_dir: Path, out: Path, epochs: int) -> list[str]:
    options = {**TINY, "trainer.max_epochs": epochs, "data.batch_size": 2}
    return [
        "fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir),
        "--embeddings", str(trec_dir / "glove.txt"), "--out", str(out),
        "--run.checkpoint_every_n_steps", "1", *(f"--{k}={v}" for k, v in options.items()),
    ]  # fmt: skip


class Progress:
    """What a real process (and its children) has computed: no wall-clock deadline, as the
    wall time of the same work depends on the load (test_kill's fit spent 5.3 CPU-s to its
    first checkpoint: 20-30 s of wall time at loads 35-44 in a session of its own, 404 s niced
    in one with a CPU hog, against the 240 s allowed before). :meth:`check` fails once it has
    spent ``cpu_seconds`` (it computes without end) or used no CPU for ``idle_seconds`` (it
    waits without end)."""

    def __init__(
        self, process: subprocess.Popen, cpu_seconds: float = 120.0, idle_seconds: float = 600.0
    ) -> None:
        self.process, self.cpu_seconds, self.idle_seconds = process, cpu_seconds, idle_seconds
        self.used, self.since = 0.0, time.monotonic()

    def check(self, awaited: str) -> None:
        used = self.used
        with contextlib.suppress(psutil.NoSuchProcess):  # ended meanwhile: its status says
            tree = psutil.Process(self.process.pid)
            used = sum(sum(p.cpu_times()[:2]) for p in [tree, *tree.children(recursive=True)])
        if used > self.used:
            self.used, self.since = used, time.monotonic()
        assert self.used < self.cpu_seconds, f"{awaited}: not in {self.used:.0f} CPU-s"
        idle = time.monotonic() - self.since
        assert idle < self.idle_seconds, f"{awaited}: no CPU used for {idle:.0f} s"


def _wait_for(path: Path, process: subprocess.Popen, cpu_seconds: float = 120.0) -> None:
    """Until ``path`` exists; fails when ``process`` ends first or stops progressing
    (:class:`Progress`)."""
    progress = Progress(process, cpu_seconds)
    while not path.exists():
        assert process.poll() is None, process.communicate()
        progress.check(f"{path} never appeared")
        time.sleep(0.05)


def _ended(process: subprocess.Popen, cpu_seconds: float = 120.0) -> tuple[str, str]:
    """``process``'s stdout and stderr once it ends; fails when it stops progressing
    (:class:`Progress`), not after a time."""
    progress = Progress(process, cpu_seconds)
    while True:
        try:
            return process.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            progress.check("the process never ended")


@pytest.mark.slow  # real processes
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_saves_a_checkpoint_and_prints_the_resume_command(
    trec_dir: Path, tmp_path: Path, signum: int, status: int
) -> None:
    out = tmp_path / "run"
    words = _fit_words(trec_dir, out, epochs=3)
    process = warm_commands.Popen(
        [*SANBENCH, *words, "--overwrite"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=Path(__file__).parents[4],
    )  # fmt: skip
    _wait_for(out / "checkpoints" / "last.ckpt", process)  # training is under way
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=240)
    assert process.returncode == status, stderr
    assert "Traceback" not in stderr
    assert f"{signal.Signals(signum).name}: training stopped at epoch 0" in stderr
    resume = stderr.split("resume with: ", 1)[1].splitlines()[0]
    root = str(Path(__file__).parents[4])  # --overwrite dropped: it would delete
    assert shlex.split(resume) == ["cd", root, "&&", "sanbench", *words]
    assert not (out / "metrics.json").exists()
    if signum != signal.SIGINT:
        return
    done = warm_commands.run(
        [*SANBENCH, *shlex.split(resume)[4:]], capture_output=True, text=True,
        cwd=Path(__file__).parents[4], timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["epochs"] == 3 and metrics["steps"] == 3 * 54  # 108 examples, batch 2


@pytest.mark.slow  # three short fits
def test_a_larger_budget_continues_a_finished_run_and_a_smaller_one_is_refused(
    trec_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    one = run_fit(tiny_run(trec_dir, out, trainer__max_epochs=1))
    two = run_fit(tiny_run(trec_dir, out, trainer__max_epochs=2))
    assert (one["epochs"], two["epochs"]) == (1, 2)
    assert two["steps"] == 2 * one["steps"]
    assert two["config"]["trainer"]["max_epochs"] == 2
    assert json.loads((out / "metrics.json").read_text())["epochs"] == 2
    with pytest.raises(RunFolderError, match=r"trainer\.max_epochs: 2 there, 1 now"):
        run_fit(tiny_run(trec_dir, out, trainer__max_epochs=1))
    assert run_fit(tiny_run(trec_dir, out, trainer__max_epochs=2)) == two


@pytest.mark.slow  # real processes
@pytest.mark.parametrize("stage", ["fit", "validate", "test"])
def test_a_ctrl_c_while_the_trained_model_is_scored_exits_130_with_the_resume_command(
    trec_dir: Path, tmp_path: Path, stage: str
) -> None:
    """Issue 54.5, found from outside: Lightning's ``validate``/``test`` turned a Ctrl-C into
    "Detected KeyboardInterrupt, attempting graceful shutdown" and exit 1, with no line of
    sanbench's, no resume command and no metrics.json. ``fit``: a Ctrl-C at training's end,
    before scoring, was swallowed (the model scored, exit 0, not a word; #54)."""
    out = tmp_path / "run"
    words = _fit_words(trec_dir, out, epochs=1)
    callback = "tests.harness.fixtures.interrupting_callback.CtrlCWhileScoring"
    pressed = [*words, f"--trainer.callbacks+={callback}", f"--trainer.callbacks.stage={stage}"]
    root = Path(__file__).parents[4]
    done = warm_commands.run([*SANBENCH, *pressed], capture_output=True, text=True, cwd=root)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr
    assert "SIGINT: stopped while scoring the trained model" in done.stderr
    assert (out / "checkpoints" / "last.ckpt").is_file()
    assert not (out / "metrics.json").exists()
    resume = done.stderr.split("resume with: ", 1)[1].splitlines()[0]
    assert shlex.split(resume) == ["cd", str(root), "&&", "sanbench", *pressed]


def test_the_saved_line_names_the_checkpoint_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short outside check 56f, item 1: with a relative --out the line said 'saved
    runs/fint/checkpoints/last.ckpt' beside a resume line that runs from any folder."""
    from types import SimpleNamespace

    from harness.training.callbacks.stop_on_signal import StopOnSignal

    monkeypatch.chdir(tmp_path)
    stop = StopOnSignal(Path("runs/f1/checkpoints/last.ckpt"))
    stop.signum = signal.SIGINT
    trainer = SimpleNamespace(sanity_checking=False, current_epoch=0, global_step=22)
    said = str(stop._save(trainer, write=False)).splitlines()[0]  # type: ignore[arg-type]
    absolute = tmp_path / "runs" / "f1" / "checkpoints" / "last.ckpt"
    assert said == f"SIGINT: training stopped at epoch 0, step 22; saved {absolute}"
