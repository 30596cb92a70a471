"""``harness.launch`` through processes of the command and submitit's local executor: results
back, errors reported, one Ctrl-C stopping every job once."""

from __future__ import annotations

import functools
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import torch  # before any job server of this process starts: the server preloads it

from datamodules.text import ReleaseEncodingWarning
from harness.command_parser import CommandParser, build
from harness.errors import RunFailedError, RunInterruptedError, failure_line
from harness.launch import JobOutcome, LaunchOptions, launch, report_outcomes
from harness.launch.processes import ended_how, launch_processes
from harness.launch.threads import usable_cores
from harness.quiet import hide_lightning_tips
from tests.harness.fixtures.modules_at_start import torch_already_imported
from tests.harness.fixtures.terminal import foreground

ROOT = Path(__file__).resolve().parents[3]


def square_and_note(x: int, log: Path) -> int:
    with log.open("a") as handle:
        handle.write(f"{x} {os.getpid()}\n")
    if x < 0:
        raise ValueError(f"negative input {x}")
    return x * x


def threads_seen() -> tuple[int, str | None]:
    return torch.get_num_threads(), os.environ.get("OMP_NUM_THREADS")


@pytest.fixture(autouse=True)
def _importable_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs unpickle calls defined in this module: the job processes must import ``tests``."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["local", "process"])
def test_each_call_is_one_job_and_errors_are_reported(tmp_path: Path, kind: str) -> None:
    log = tmp_path / "calls.log"
    calls = [functools.partial(square_and_note, x, log) for x in (3, -1, 4)]
    options = LaunchOptions(kind, slurm_time=5)
    outcomes = launch(calls, options, folder=tmp_path / "jobs", name="t")
    assert [o.ok for o in outcomes] == [True, False, True]
    assert [outcomes[0].result, outcomes[2].result] == [9, 16]
    assert "negative input -1" in outcomes[1].error
    assert outcomes[1].stderr is not None and outcomes[1].stderr.is_file()
    pids = {line.split()[1] for line in log.read_text().splitlines()}
    assert len(pids) == 3 and str(os.getpid()) not in pids  # three job processes, not this one
    with pytest.raises(RunFailedError) as died:
        report_outcomes(outcomes, describe=lambda value: f"gave {value}", log=print)
    assert str(died.value).startswith("1 of 3 jobs died")


def visible_devices() -> str | None:
    return os.environ.get("CUDA_VISIBLE_DEVICES")


@pytest.mark.slow  # a submitit job on this machine
@pytest.mark.parametrize("visible", ["2", None])
def test_a_local_job_sees_the_gpus_this_process_sees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, visible: str | None
) -> None:
    """submitit's local executor set the job's CUDA_VISIBLE_DEVICES to the first
    ``--slurm-gpus`` (0 by default) devices: a ``--device cuda`` job saw none, and ``auto``
    profiled the CPU (issue 57 breaker)."""
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    options = LaunchOptions("local", slurm_time=5)
    (outcome,) = launch([visible_devices], options, folder=tmp_path / "jobs", name="t")
    assert outcome.ok and outcome.result == visible


def fail_in_two_lines() -> None:
    raise ValueError("first line\nsecond line")


@pytest.mark.slow  # a job process
def test_a_jobs_failure_is_one_line_as_a_suite_runs_is(tmp_path: Path) -> None:
    """Issue 55.3: one renderer; a job showed only the first line of its error's message."""
    options = LaunchOptions("process")
    (outcome,) = launch([fail_in_two_lines], options, folder=tmp_path / "jobs", name="t")
    assert outcome.error == "ValueError: first line | second line"
    assert outcome.error == failure_line(ValueError("first line\nsecond line"))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["local", "process"])
def test_jobs_side_by_side_share_the_cores(tmp_path: Path, kind: str) -> None:
    """Two jobs at once on this machine compute on half its cores each (at least one): on two
    cores, two jobs of two threads each made oneDNN's LSTM wait a time slice per step."""
    options = LaunchOptions(kind, slurm_time=5)
    outcomes = launch([threads_seen, threads_seen], options, folder=tmp_path / "jobs", name="t")
    share = max(1, usable_cores() // 2)
    assert [o.result for o in outcomes] == [(share, str(share))] * 2
    (alone,) = launch([threads_seen], options, folder=tmp_path / "one", name="t", threads=3)
    assert alone.result == (3, "3")  # a command's own choice (reproduce --threads)


@pytest.mark.slow  # two job processes
def test_process_jobs_start_with_the_commands_torch_imported(tmp_path: Path) -> None:
    """torch, and Lightning (~9 s of CPU) when the command has imported it, is imported once for
    the command, by the server the jobs are forked from, not again by each job (a spawned job
    imported it itself); each job is still a process of its own."""
    assert "torch" in sys.modules  # imported above, before any job server of this process
    # the job's module imports no torch (a spawned job had none before its call)
    calls = [torch_already_imported, torch_already_imported]
    outcomes = launch_processes(calls, tmp_path / "jobs", "t")
    assert [o.result[0] for o in outcomes] == [True, True]
    assert len({o.result[1] for o in outcomes} | {os.getpid()}) == 3


def say(word: str) -> None:
    print(word, flush=True)


@pytest.mark.slow  # two job processes
def test_a_jobs_lines_reach_the_console_the_command_has_as_it_launches(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A job forked from the server writes on the command's stdout as the job starts, not on
    the one the server started with (pytest's capture of an earlier test lost the lines)."""
    with capfd.disabled():  # the job server, if not running yet, starts on another stdout
        launch_processes([functools.partial(say, "before")], tmp_path / "before", "t")
    launch_processes([functools.partial(say, "now")], tmp_path / "now", "t")
    assert "now" in capfd.readouterr().out


def warn(messages: list[str]) -> None:
    for message in messages:
        warnings.warn(ReleaseEncodingWarning(message), stacklevel=1)


@pytest.mark.slow  # three launches of job processes
def test_a_warning_said_once_per_command_is_said_once_by_its_process_jobs(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Outside check 54l, item 4: under ``--launcher process --jobs 2`` each job said the
    partial-split and TREC's Windows-1252 warnings (4 lines for 2 messages), inline the command
    said each once. The first job (or the command) to say one says it, for the command."""
    hide_lightning_tips()  # a command starts, and says one warning itself
    said = warnings.formatwarning(ReleaseEncodingWarning("a"), ReleaseEncodingWarning, "f", 1)
    assert said == "warning: a\n"
    capfd.readouterr()
    messages = ["a", "b", "c"]
    calls = [functools.partial(warn, messages), functools.partial(warn, messages[::-1])]
    launch_processes(calls, tmp_path / "jobs", "t")
    assert sorted(capfd.readouterr().err.splitlines()) == ["warning: b", "warning: c"]
    launch_processes([functools.partial(warn, ["b", "d"])], tmp_path / "jobs", "t")
    assert capfd.readouterr().err.splitlines() == ["warning: d"]
    hide_lightning_tips()  # the next command, in the same folder, says its own again
    launch_processes([functools.partial(warn, ["b"])], tmp_path / "jobs", "t")
    assert capfd.readouterr().err.splitlines() == ["warning: b"]


def test_the_report_names_each_job_and_how_to_resume(capsys: pytest.CaptureFixture) -> None:
    outcomes = [JobOutcome("7", result=4), JobOutcome("8", error="ValueError: bad", stderr=None)]
    with pytest.raises(RunFailedError, match=r"1 of 2 jobs died .*; rerun it"):
        report_outcomes(outcomes, labels=["a", "b"], describe=str, resume="rerun it")
    assert capsys.readouterr().out.splitlines() == [
        "job 7 (a): 4",
        "job 8 (b) died: ValueError: bad (no log file)",
    ]


def crash(signum: int) -> None:
    os.kill(os.getpid(), signum)


@pytest.mark.slow  # a job server that preloads torch: 5 s at load 7
def test_a_job_killed_by_a_signal_is_said_so_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Was "process ended with exit code -11, no result (log: None)"."""
    signals = [signal.SIGSEGV, signal.SIGKILL]
    calls = [functools.partial(crash, signum) for signum in signals]
    outcomes = launch_processes(calls, tmp_path, "t")
    with pytest.raises(RunFailedError):
        report_outcomes(outcomes)
    assert capsys.readouterr().out.splitlines() == [
        f"job t-{k}-of-2 died: process killed by {signum.name}, no result (no log file)"
        for k, signum in enumerate(signals, start=1)
    ]


def test_a_process_without_a_result_is_said_killed_by_its_signal_name() -> None:
    assert ended_how(-signal.SIGSEGV) == "process killed by SIGSEGV"
    assert ended_how(-99) == "process killed by signal 99"
    assert ended_how(3) == "process ended with exit code 3"


def test_command_line_options() -> None:
    parser = CommandParser("sanbench test")
    parser.add_options(LaunchOptions)
    assert build(LaunchOptions, parser.parse([])).in_process
    argv = ["--launcher", "slurm", "--jobs", "4", "--slurm-partition", "gpu", "--slurm-gpus", "1"]
    options = build(LaunchOptions, parser.parse([*argv, "--slurm_time", "30"]))
    assert options == LaunchOptions("slurm", 4, "gpu", slurm_time=30, slurm_gpus=1)
    parameters = options.executor_parameters("suite")
    assert parameters["slurm_partition"] == "gpu" and parameters["gpus_per_node"] == 1
    assert parameters["timeout_min"] == 30 and "mem_gb" not in parameters
    with pytest.raises(ValueError) as error:
        LaunchOptions(jobs=0, slurm_gpus=-1, launcher="pbs")
    assert str(error.value).splitlines() == [
        "--launcher 'pbs': expected one of process, local, slurm",
        "--jobs 0: expected a positive integer",
        "--slurm-gpus -1: expected a non-negative integer",
    ]


def test_slurm_without_sbatch_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(ValueError, match="sbatch not found on PATH"):
        LaunchOptions("slurm").check_available()
    LaunchOptions("local").check_available()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["local", "process"])
def test_one_ctrl_c_to_the_process_group_stops_every_job_once(tmp_path: Path, kind: str) -> None:
    """A terminal's Ctrl-C reaches the launcher, submitit's controllers and their tasks; each
    task must see exactly one SIGINT and finish saving (no SIGKILL a second later), and nothing
    but the launcher's message reaches the console."""
    process = foreground(
        [sys.executable, "-m", "tests.harness.fixtures.launch_interrupted", str(tmp_path), kind],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("started-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert sorted(p.name for p in tmp_path.glob("saved-*")) == ["saved-0-SIGINT", "saved-1-SIGINT"]
    assert "Traceback" not in stdout + stderr
    assert "interrupted: 2 of 2 jobs stopped" in stderr
    assert f"resume with: cd {ROOT} && sanbench" in stderr
    assert not list((tmp_path / "jobs").glob("*_task.pid"))


def test_the_stop_line_says_only_what_the_stopped_jobs_saved() -> None:
    """Issue 54: a Ctrl-C before the jobs' runs started said "their runs saved", no run
    folder existing; a job stopped before its run's handler, or killed, saved nothing known."""
    from harness.launch.outcomes import Interrupted, what_was_saved

    saved = JobOutcome("1", result=Interrupted("SIGTERM: training stopped"))
    before = JobOutcome("2", result=Interrupted("SIGINT before its run started", saved=False))
    killed = JobOutcome("3", error="process killed by SIGTERM, no result")
    assert what_was_saved([saved, saved]) == "their runs saved"
    assert what_was_saved([before, before]) == "2 before training (nothing saved)"
    assert what_was_saved([saved, before, killed]) == (
        "1 with their runs saved, 1 before training (nothing saved), "
        "1 without a result (ended by the signal)"
    )
    # outside check 54l item 1: killed by the third Ctrl-C, with and without a checkpoint
    cut = [JobOutcome(job, error="process killed by SIGKILL, no result") for job in "456"]
    assert what_was_saved(cut, killed={"4", "5", "6"}, resumable={"4"}) == (
        "3 killed while saving (the third Ctrl-C): 1 resume from their last checkpoints "
        "(the steps since lost), 2 had none and start again"
    )
    assert what_was_saved(cut[1:], killed={"4", "5", "6"}, resumable={"4"}) == (
        "2 killed while saving (the third Ctrl-C): their runs had no checkpoint yet and start again"
    )


def fit_stopped_in_its_sanity_check(folder: str) -> None:
    """A tiny fit that gets SIGTERM in Lightning's sanity check (its validation before
    training), under sanbench's stop handling: it stops there, nothing saved."""
    import lightning.pytorch as pl
    from lightning.pytorch.demos.boring_classes import BoringModel

    from harness.training.callbacks.stop_on_signal import StopOnSignal, stop_on_signals

    class TerminatedInTheSanityCheck(pl.Callback):
        def on_sanity_check_start(self, trainer: pl.Trainer, pl_module: object) -> None:
            signal.raise_signal(signal.SIGTERM)

    stop = StopOnSignal(Path(folder) / "last.ckpt")
    trainer = pl.Trainer(
        callbacks=[TerminatedInTheSanityCheck(), stop], max_steps=2, num_sanity_val_steps=2,
        logger=False, enable_progress_bar=False,
        enable_model_summary=False, default_root_dir=folder, accelerator="cpu",
    )  # fmt: skip
    with stop_on_signals(stop):
        trainer.fit(BoringModel())


@pytest.mark.slow  # a job server that preloads torch, and a Lightning fit
@pytest.mark.parametrize("kind", ["local", "process"])
def test_a_job_stopped_in_the_sanity_check_is_said_to_have_saved_nothing(
    tmp_path: Path, kind: str
) -> None:
    """#54: its stop line said "SIGTERM: stopped in the sanity check, before training;
    nothing saved", and the command's counted it among the jobs whose runs saved."""
    call = functools.partial(fit_stopped_in_its_sanity_check, str(tmp_path))
    nothing_saved = "1 before training (nothing saved)"
    if kind == "local":  # submitit's job wrapper, run here (its task would run it so)
        from harness.launch.outcomes import what_was_saved
        from harness.launch.submitit_jobs import _resumable

        outcome = JobOutcome("1", result=_resumable()()(call))
        assert outcome.interrupted and "stopped in the sanity check" in outcome.result.message
        assert what_was_saved([outcome]) == nothing_saved
    else:
        with pytest.raises(RunInterruptedError, match=re.escape(f"stopped, {nothing_saved}")):
            launch_processes([call], tmp_path / "jobs", "t")
    assert not (tmp_path / "last.ckpt").exists()


@pytest.mark.slow  # two commands, each with a job process
def test_two_commands_on_one_folder_keep_their_jobs_files_apart(tmp_path: Path) -> None:
    """Outside check 5y, item 3: two commands sharing one --out (a study's workers) shared
    ``OUT/jobs/said/``, which each launch emptied, and named their jobs alike: the second
    command's console never said a warning the first's jobs had, and one's result files were
    the other's. Each command's jobs now write in a folder of its own, removed as it exits."""
    commands = {
        label: subprocess.Popen(
            [sys.executable, "-m", "tests.harness.fixtures.launch_beside", str(tmp_path), label],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for label in ("A", "B")
    }
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"ready-{label}").exists() for label in commands):
        assert time.monotonic() < deadline, "the jobs never started"
        time.sleep(0.1)
    (tmp_path / "go").touch()
    for label, command in commands.items():
        out, err = command.communicate(timeout=120)
        assert command.returncode == 0, err
        assert out.splitlines() == [f"result {label}"]
        assert err.splitlines() == ["warning: said once per command"]
    assert list((tmp_path / "jobs").iterdir()) == []  # each command removed its own folder


def wait_for_a_signal(ready: str) -> None:
    """A job that waits (outside any run's work) until a signal stops it."""
    Path(ready).write_text("")
    time.sleep(60)


@pytest.mark.slow  # a job server that preloads torch
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("kind", ["runs", "points"])
def test_a_stop_says_the_signals_word_and_the_jobs_work(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], signum: int, kind: str
) -> None:
    """Outside check at 9564b86 items 1 and 3: a ``suite --launcher process`` whose command got
    SIGTERM said ``interrupted: 1 of 1 jobs stopped`` (every other command: ``terminated``), and
    a profile's jobs said they were stopped outside a run's training (a sweep has points)."""
    import threading

    from harness.interrupts import interrupt_noted, terminate_raises
    from harness.launch import POINTS, RUNS

    words = {"runs": RUNS, "points": POINTS}[kind]
    ready = tmp_path / "ready"
    call = functools.partial(wait_for_a_signal, str(ready))

    def signal_once_the_job_waits() -> None:
        while not ready.exists():
            time.sleep(0.02)
        os.kill(os.getpid(), signum)

    sender = threading.Thread(target=signal_once_the_job_waits, daemon=True)
    stopped_by = RunInterruptedError("terminated", signal.SIGTERM)  # what harness.cli raises
    with (
        pytest.raises(RunInterruptedError) as stopped,
        interrupt_noted(),
        terminate_raises(lambda: stopped_by),
    ):
        sender.start()
        launch_processes([call], tmp_path / "jobs", "t", words=words)
    word = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}[signum]
    assert str(stopped.value).startswith(f"{word}: 1 of 1 jobs stopped, ")
    said = capfd.readouterr()
    name = signal.Signals(signum).name
    work = {"runs": "a run's training", "points": "a point's measurement"}[kind]
    assert f"t-1-of-1: {name}: stopped outside {work}, none was cut short" in said.out


def test_a_second_ctrl_c_while_a_sweeps_jobs_stop_names_their_points(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Outside check at 9564b86 item 3: profile's jobs, stopped, were said to be "saving their
    runs" with "unsaved steps lost"; a sweep keeps its finished points (rows)."""
    from harness.launch import POINTS, RUNS
    from harness.launch.processes import _again_kills

    for words, line in [
        (POINTS, "the jobs are ending their sweeps; Ctrl-C again to kill them (their finished "
         "points kept)"),
        (RUNS, "the jobs are saving their runs; Ctrl-C again to kill them (unsaved steps lost)"),
    ]:  # fmt: skip
        _again_kills(words)(signal.SIGINT, None)
        assert capsys.readouterr().err == f"sanbench: {line}\n"


def test_jobs_stopped_outside_their_work_are_said_to_have_cut_nothing_short() -> None:
    """Outside check 15y, item 3: one Ctrl-C to ``suite --launcher process`` before any run
    started said "2 of 2 jobs stopped, their runs saved", though no run had started and
    nothing was saved: the jobs had stopped outside a run's training."""
    from harness.launch.outcomes import Interrupted, what_was_saved

    outside = JobOutcome("a", result=Interrupted("stopped outside", saved=True, cut=False))
    saved = JobOutcome("b", result=Interrupted("run saved"))
    assert what_was_saved([outside, outside]) == "none was cut short"
    assert what_was_saved([saved, outside]) == (
        "1 with their runs saved, 1 outside their work (none cut short)"
    )
