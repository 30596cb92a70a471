"""fp16 where it cannot train right is refused before any data is read; what runs is recorded
(outside check of #54: ``--trainer.precision 16-true`` exited 0 with a nan dev and test loss,
``16-mixed`` on a CPU trained in bf16-mixed under two raw Lightning lines and was recorded as
``16-mixed``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from harness.cli import main
from tests.harness.problem_lines import problem_lines

ROOT = Path(__file__).parents[4]
FIXTURES = ROOT / "tests" / "datamodules" / "fixtures"
DATA = ["--data-dir", str(FIXTURES / "kim2014")]
FIT = ["fit", "--task", "sst2", "--encoder", "multi_cnn", *DATA, "--trainer.max_steps", "1"]
ON_CPU = ["--trainer.accelerator", "cpu"]
# each command's words, with a run folder of its own
SUITE = ["suite", "--tasks", "sst2", "--encoders", "multi_cnn", "--seeds", "1", "--max-steps", "1"]
TUNE = ["tune", "--study", "dropout", "--task", "sst2", "--encoder", "multi_cnn", "--trials", "1"]
REPRODUCE = ["reproduce", "--preset", "cpu", "--tasks", "sst2", "--encoders", "multi_cnn"]
COMMANDS = {
    "fit": [*FIT, "--out", "r"],
    "suite": [*SUITE, *DATA, "--out", "r"],
    "tune": [*TUNE, "--max-steps", "1", *DATA, "--out", "r"],
    "reproduce": [*REPRODUCE, *DATA, "--out", "r"],
}
# (precision words, what the one line says)
REFUSED = [
    (["--trainer.precision", "16-true"], "--trainer.precision 16-true: fp16 weights and "),
    ([*ON_CPU, "--trainer.precision", "16-mixed"], "--trainer.precision 16-mixed: fp16 autocast"),
    ([*ON_CPU, "--trainer.precision", "16"], "--trainer.precision 16: fp16 autocast needs a CUDA"),
    (
        [*ON_CPU, "--trainer.precision", "transformer-engine"],
        "--trainer.precision transformer-engine: NVIDIA Transformer Engine's fp8 needs",
    ),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("words", "named"), REFUSED, ids=[w[-1] for w, _ in REFUSED])
def test_fp16_that_cannot_train_right_is_one_line_naming_bf16(
    command: str,
    words: list[str],
    named: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    os.chdir(tmp_path)
    status = main([*COMMANDS[command], *words])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = problem_lines(err, command)
    assert len(lines) == 1 and named in lines[0] and "give bf16-mixed" in lines[0], lines
    assert list(tmp_path.iterdir()) == []  # refused before anything is made or read


def test_16_mixed_is_refused_on_a_machine_without_cuda(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default accelerator (auto) trains on the CPU here: Lightning's bf16 in fp16's place."""
    if torch.cuda.is_available() or torch.backends.mps.is_available():
        pytest.skip("auto chooses a GPU here")
    os.chdir(tmp_path)
    assert main([*COMMANDS["fit"], "--trainer.precision", "16-mixed"]) == 2
    assert "on this CPU Lightning would train in bf16-mixed" in capsys.readouterr().err


def test_an_old_name_runs_and_is_recorded_as_what_ran_with_no_lightning_line(
    tmp_path: Path,
) -> None:
    """``bf16`` (Lightning's old name of bf16-mixed) printed Lightning's 'supported for
    historical reasons' warning and 'Using bfloat16 Automatic Mixed Precision (AMP)', and was
    recorded as ``bf16``. A process of its own: the console as the user sees it."""
    words = [*FIT, *ON_CPU, "--trainer.precision", "bf16", "--out", str(tmp_path / "r")]
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", *words],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    console = done.stdout + done.stderr
    for raw in ("Automatic Mixed Precision", "historical reasons", "site-packages"):
        assert raw not in console, console
    metrics = json.loads((tmp_path / "r" / "metrics.json").read_text())
    assert metrics["config"]["trainer"]["precision"] == "bf16-mixed"
    assert "  precision: bf16-mixed\n" in (tmp_path / "r" / "fit_config.yaml").read_text()


def test_on_cuda_16_mixed_runs_and_16_true_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the trainer runs on CUDA (auto on a machine with it, or gpu/cuda given), fp16
    autocast with loss scaling is what to give."""
    from harness.training.settings.precision import precision_problems

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    for accelerator in ("auto", "gpu", "cuda"):
        assert precision_problems({"precision": "16-mixed", "accelerator": accelerator}) == []
        (line,) = precision_problems({"precision": "16-true", "accelerator": accelerator})
        assert line.endswith("give bf16-mixed, or 16-mixed (fp16 autocast, the loss scaled)")
    assert precision_problems({"precision": "16-mixed", "accelerator": "cpu"})  # still the CPU


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("accelerator", ["cuda", "gpu"])
def test_a_cuda_accelerator_without_cuda_is_one_line_before_any_data_is_read(
    command: str,
    accelerator: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--trainer.accelerator cuda`` where torch sees no CUDA device: Lightning refused it after
    the data was read, in its own words ("`CUDAAccelerator` can not run on your system");
    outside check of 2026-11-30."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    os.chdir(tmp_path)
    status = main([*COMMANDS[command], "--trainer.accelerator", accelerator])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = problem_lines(err, command)
    assert len(lines) == 1 and "sees no CUDA device here; give cpu or auto" in lines[0], lines
    assert list(tmp_path.iterdir()) == []


# (accelerator, what its one line says) on a machine with no MPS, TPU or CUDA
UNUSABLE = [
    ("mps", "sees no Apple MPS device here (Apple silicon, macOS); give cpu or auto"),
    ("tpu", "Lightning finds no torch_xla package or TPU device here; give cpu or auto"),
    ("CPU", "expected auto, cpu, cuda, gpu, mps or tpu (did you mean cpu?)"),
    # a class path written as a name: Lightning refuses the string after the data was read
    # (short outside check 54h, item 2)
    ("lightning.pytorch.accelerators.CUDAAccelerator", "expected auto, cpu, cuda, gpu, mps or tpu"),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("accelerator", "said"), UNUSABLE, ids=[a.rpartition(".")[2] for a, _ in UNUSABLE]
)
@pytest.mark.parametrize("given", ["flag", "config file"])
def test_an_accelerator_that_cannot_run_here_is_one_line_before_any_data_is_read(
    command: str,
    accelerator: str,
    said: str,
    given: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``tpu``, ``mps`` and ``CPU`` were judged only after the data was read: tpu an internal
    error (torch_xla missing, exit 1), the others in Lightning's words; the suite tried every
    run, tune made optuna.db (outside check 54g item 1). A config file's value is named as its
    precision is (``--config FILE: trainer.accelerator ...``)."""
    if torch.backends.mps.is_available() or torch.cuda.is_available():
        pytest.skip("a GPU here")
    os.chdir(tmp_path)
    if given == "flag":
        words, option = ["--trainer.accelerator", accelerator], "--trainer.accelerator"
    else:
        config = tmp_path.parent / f"{tmp_path.name}-a.yaml"
        config.write_text(f"trainer:\n  accelerator: {accelerator}\n")
        words, option = ["--config", str(config)], f"--config {config}: trainer.accelerator"
    status = main([*COMMANDS[command], *words])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = problem_lines(err, command)
    begins = f"sanbench {command}: {option} {accelerator}: "
    assert len(lines) == 1 and lines[0].startswith(begins) and lines[0].endswith(said), lines
    assert list(tmp_path.iterdir()) == []  # refused before anything is made or read


@pytest.mark.parametrize(
    ("accelerator", "said"), [("gpu", "sees no CUDA device here; give cpu or auto"), *UNUSABLE[:3]]
)
def test_an_accelerator_of_a_trainer_file_is_named_as_the_file_spells_it(
    accelerator: str,
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``fit --trainer tr.yaml`` whose file says ``accelerator: gpu`` was refused as
    ``--trainer.accelerator cuda``: a flag nobody gave, with Lightning's name for the value
    (issue 54, leftover). Named as a ``--config`` file's value is, as written."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    if torch.backends.mps.is_available():
        pytest.skip("a GPU here")
    os.chdir(tmp_path)
    trainer = tmp_path.parent / f"{tmp_path.name}-tr.yaml"
    trainer.write_text(f"accelerator: {accelerator}\n")
    status = main([*COMMANDS["fit"], "--trainer", str(trainer)])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = problem_lines(err, "fit")
    begins = f"sanbench fit: --trainer {trainer}: accelerator {accelerator}: "
    assert len(lines) == 1 and lines[0].startswith(begins) and lines[0].endswith(said), lines
    assert list(tmp_path.iterdir()) == []


def test_a_trainer_files_budget_is_named_as_the_file_spells_it_and_no_flag_it_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--trainer.max_steps 1 --trainer t0.yaml`` (the file: ``max_steps: 0``) said
    ``--trainer.max_steps 0: trains nothing`` and ``--trainer.max_steps 1: read as 0 (YAML's
    octal)``: the flag the file replaced was quoted with the file's value."""
    os.chdir(tmp_path)
    trainer = tmp_path.parent / f"{tmp_path.name}-t0.yaml"
    trainer.write_text("max_steps: 0\n")
    assert main([*COMMANDS["fit"], "--trainer", str(trainer)]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"sanbench fit: --trainer {trainer}: max_steps 0: trains nothing")


def test_an_accelerator_named_by_no_typed_option_is_named_as_given() -> None:
    """Without the words typed (a run's config), ``gpu`` is said as ``gpu``, not ``cuda``."""
    from harness.training.settings.precision import accelerator_problems

    if torch.cuda.is_available():
        pytest.skip("CUDA here")
    (line,) = accelerator_problems({"accelerator": "gpu"})
    assert line.startswith("--trainer.accelerator gpu: "), line
