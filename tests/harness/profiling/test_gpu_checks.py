"""``nox -s bench``'s GPU checks: on this CPU machine they say they were not run and why; their
verdicts are checked on what NVML and torch return on a machine with GPUs (stood in for)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from harness.measurement.gpu_process import gpus_listing
from harness.profiling import gpu_checks
from harness.profiling.gpu_checks import context_check, nvml_matches_torch, peak_against_prediction

# torch's cuda:0 and cuda:1 are NVML's GPUs at buses 5E and 1A (CUDA_VISIBLE_DEVICES=2,0)
TORCH_GPUS = [
    SimpleNamespace(pci_domain_id=0, pci_bus_id=0x5E, pci_device_id=0, uuid="aaaa-5e"),
    SimpleNamespace(pci_domain_id=0, pci_bus_id=0x1A, pci_device_id=0, uuid="bbbb-1a"),
]


class FakeNvml:
    def __init__(self, uuids: dict[str, str], pids: dict[str, list[int]]) -> None:
        self.uuids, self.pids = uuids, pids

    def nvmlDeviceGetHandleByPciBusId(self, bus_id: str) -> str:  # noqa: N802
        return bus_id

    def nvmlDeviceGetUUID(self, handle: str) -> bytes:  # noqa: N802
        return self.uuids[handle].encode()

    def nvmlDeviceGetComputeRunningProcesses(self, handle: str) -> list:  # noqa: N802
        return [SimpleNamespace(pid=pid) for pid in self.pids.get(handle, [])]


UUIDS = {"00000000:5E:00.0": "GPU-AAAA-5E", "00000000:1A:00.0": "GPU-BBBB-1A"}


def test_on_a_cpu_build_the_bench_says_it_runs_on_cpu(capsys: pytest.CaptureFixture) -> None:
    """Issue 57.9: `nox -s bench` with torch's CPU wheel ran on CPU without a word."""
    assert gpu_checks.main(["device"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("bench runs on CPU: ") and torch.__version__ in line


def test_without_cuda_every_check_says_it_was_not_run_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "profile.csv").write_text("encoder\n")
    assert gpu_checks.main(["checks", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5
    assert all(": not run: no CUDA here: " in line for line in lines)


def test_nvml_finds_torchs_gpus_by_bus_id() -> None:
    check = nvml_matches_torch(FakeNvml(UUIDS, {}), TORCH_GPUS)
    assert check.ok is True and "cuda:1 = NVML GPU at 00000000:1A:00.0" in check.detail


def test_a_gpu_whose_uuid_differs_fails() -> None:
    swapped = {"00000000:5E:00.0": "GPU-BBBB-1A", "00000000:1A:00.0": "GPU-AAAA-5E"}
    check = nvml_matches_torch(FakeNvml(swapped, {}), TORCH_GPUS)
    assert check.ok is False and "cuda:0" in check.detail and "cuda:1" in check.detail


def test_a_context_on_a_gpu_not_asked_for_fails() -> None:
    """The process asked for cuda:1; NVML also lists it on torch's cuda:0 (bus 5E)."""
    nvml = FakeNvml(UUIDS, {"00000000:5E:00.0": [42], "00000000:1A:00.0": [42, 7]})
    listed = gpus_listing(42, nvml, TORCH_GPUS)
    assert listed == [0, 1]
    check = context_check(1, listed, 2)
    assert check.ok is False and "also has a context on cuda:0" in check.detail
    assert context_check(1, [1], 2).ok is True
    assert context_check(1, [], 2).ok is None  # a container's process ids: cannot tell


def test_the_cuda_peak_is_reported_against_the_prediction() -> None:
    row = {"device": "cuda", "mode": "train", "encoder": "disan"}
    rows = [
        {**row, "seq_len": "16", "predicted_error_pct": "-3.5"},
        {**row, "seq_len": "32", "predicted_error_pct": "1.25"},
        {**row, "seq_len": "64", "predicted_error_pct": ""},
    ]
    check = peak_against_prediction(rows)
    assert check.ok is True and "2 rows" in check.detail
    assert "-3.5% (disan train L=16) to +1.2% (disan train L=32)" in check.detail
    assert peak_against_prediction([]).ok is False


def test_an_nvml_error_leaves_the_check_not_run_and_the_later_checks_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside tester (issue 57): ``nvml_matches_torch`` had no ``try``, so one NVMLError (a
    driver older than the library) ended every later bench check with a traceback."""
    import pynvml

    def fails(*args: object) -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)

    monkeypatch.setattr(gpu_checks, "why_no_cuda", lambda: "")
    monkeypatch.setattr(
        gpu_checks, "fp16_tiles_check", lambda log: gpu_checks.Check("fp16", True, "")
    )
    monkeypatch.setattr(gpu_checks, "encode_check", lambda work: gpu_checks.Check("fit", True, ""))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: TORCH_GPUS[index])
    monkeypatch.setattr(pynvml, "nvmlInit", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlShutdown", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlDeviceGetHandleByPciBusId", lambda bus_id: bus_id)
    monkeypatch.setattr(pynvml, "nvmlDeviceGetUUID", fails)
    checks = list(gpu_checks.run_checks(tmp_path))
    assert checks[0].ok is None and "NVML failed" in checks[0].detail and len(checks) == 5
    monkeypatch.setattr(pynvml, "nvmlShutdown", fails)
    assert next(gpu_checks.run_checks(tmp_path)).ok is None


def test_a_struct_size_type_error_leaves_the_nvml_check_not_run_as_an_nvml_error_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pynvml newer than the driver's NVML raises TypeError where their structs differ."""
    import pynvml

    def struct_size(*args: object) -> None:
        raise TypeError("struct c_nvmlProcessInfo_v3_t size")

    monkeypatch.setattr(pynvml, "nvmlInit", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlShutdown", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlDeviceGetHandleByPciBusId", struct_size)
    check = gpu_checks.nvml_check(pynvml, [TORCH_GPUS[0]])
    assert check.ok is None and "NVML failed" in check.detail and "struct" in check.detail


def test_confirm_refuses_on_a_machine_without_cuda_in_one_line_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 57.8: the one command that confirms the GPU claims (a CUDA sweep, then the checks)
    says on a CPU machine, in one line, why it cannot run: exit 2, no run folder."""
    run = tmp_path / "gpu-confirm"
    assert gpu_checks.main(["confirm", str(run)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("gpu_checks confirm: no CUDA here: ") and "CPU build" in err
    assert not run.exists()


@pytest.mark.parametrize("argv", [["--help"], ["confirm", "--help"], ["confirm", "-h"]])
def test_help_prints_the_usage_and_no_option_is_a_run_folder(
    argv: list[str], capsys: pytest.CaptureFixture
) -> None:
    """``confirm --help`` said "no CUDA here" (exit 2) and, on a GPU, would have swept into a
    folder named ``--help`` (issue 57 breaker)."""
    assert gpu_checks.main(argv) == 0
    assert capsys.readouterr().out.startswith("usage: python -m harness.profiling.gpu_checks")
    assert gpu_checks.main(["confirm", "--out"]) == 2
    assert capsys.readouterr().err.startswith("usage: ")


@pytest.mark.parametrize(
    ("sweep_status", "check_ok", "status"),
    [(0, True, 0), (1, True, 1), (0, False, 1), (130, True, 130)],
)
def test_confirm_sweeps_on_cuda_then_runs_every_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
    sweep_status: int, check_ok: bool, status: int,
) -> None:  # fmt: skip
    """With CUDA (stood in for): ``sanbench profile --device cuda`` of the claims' encoders into
    RUN, then every check of RUN; a sweep with failed points (1) still gets the checks and makes
    the status 1, Ctrl-C (130) stops at once."""
    swept: list[list[str]] = []

    class Sweep:
        def __init__(self, command: list[str]) -> None:
            swept.append(command)

        def __enter__(self) -> Sweep:
            return self

        def __exit__(self, *args: object) -> None:
            pass

        def wait(self) -> int:
            return sweep_status

    monkeypatch.setattr(gpu_checks, "why_no_cuda", lambda: "")
    monkeypatch.setattr(gpu_checks.subprocess, "Popen", Sweep)
    checked: list[Path] = []
    monkeypatch.setattr(
        gpu_checks,
        "run_checks",
        lambda run: checked.append(run) or [gpu_checks.Check("peak", check_ok, "x")],
    )
    run = tmp_path / "gpu-confirm"
    assert gpu_checks.main(["confirm", str(run)]) == status
    (command,) = swept
    assert command[1:3] == ["profile", "--device"] and command[3] == "cuda"
    assert command[command.index("--out") + 1] == str(run)
    assert "disan:attention_impl=chunked" in command[command.index("--encoders") + 1]
    assert checked == ([] if status == 130 else [run])


# runs gpu_checks as ``python -m`` does, a SIGINT sent to itself as torch's import begins
INTERRUPTED_IMPORT = """
import os, runpy, signal, sys

class CtrlCAtTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlCAtTorch())
sys.argv = ["gpu_checks", "confirm", sys.argv[1]]
runpy.run_module("harness.profiling.gpu_checks", run_name="__main__", alter_sys=True)
"""


@pytest.mark.slow  # a Python process importing torch
def test_a_ctrl_c_during_the_imports_exits_130_in_one_line(tmp_path: Path) -> None:
    """Issue 57 breaker: a Ctrl-C during ``confirm``'s imports printed a traceback."""
    import subprocess
    import sys

    run = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IMPORT, str(run)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines() == ["gpu_checks: interrupted"], done.stderr
    assert not run.exists()


def test_the_fit_check_trains_an_attention_encoder_and_predicts_as_well_as_encodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 57 breaker: the GPU confirmation ran ``encode`` only, after a fit of multi_cnn only;
    it now fits DiSAN too (its chunked attention's tiles on CUDA) and runs ``predict`` and
    ``encode`` on each checkpoint. The commands are recorded here, their outputs stood in for."""
    import numpy as np

    ran: list[tuple[str, str]] = []

    def sanbench(command: list[str], **kwargs: object) -> SimpleNamespace:
        out = Path(command[command.index("--out") + 1])
        words = dict(zip(command[2::2], command[3::2], strict=False))
        ran.append((command[1], words.get("--encoder") or Path(words["--ckpt"]).parts[-3]))
        out.parent.mkdir(parents=True, exist_ok=True)
        if command[1] == "encode":
            np.save(out, np.zeros((2, 4)))
        elif command[1] == "predict":
            out.write_text("line,sentence,label\n1,a,0\n2,b,1\n")
        return SimpleNamespace(returncode=0, stderr="")

    monkeypatch.setattr(gpu_checks, "run_child", sanbench)
    check = gpu_checks.encode_check(tmp_path / "work")
    assert check.ok, check.detail
    assert ran == [
        (command, encoder)
        for encoder in ("multi_cnn", "disan")
        for command in ("fit", "encode", "predict")
    ]


def nvml_that_fails_to_shut_down(monkeypatch: pytest.MonkeyPatch, nvml: FakeNvml) -> object:
    """pynvml answering as ``nvml`` does, whose ``nvmlShutdown`` raises an NVMLError."""
    import pynvml

    def fails() -> None:
        raise pynvml.NVMLError(pynvml.NVML_ERROR_UNINITIALIZED)

    monkeypatch.setattr(pynvml, "nvmlInit", lambda: None)
    monkeypatch.setattr(pynvml, "nvmlShutdown", fails)
    for name in ("nvmlDeviceGetHandleByPciBusId", "nvmlDeviceGetUUID",
                 "nvmlDeviceGetComputeRunningProcesses"):  # fmt: skip
        monkeypatch.setattr(pynvml, name, getattr(nvml, name))
    return pynvml


def test_a_failed_nvml_shutdown_keeps_the_uuid_verdict_and_notes_the_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside breaker of issue 57: a UUID mismatch became "not run" (exit 0) when
    ``nvmlShutdown`` failed after the read."""
    swapped = {"00000000:5E:00.0": "GPU-BBBB-1A", "00000000:1A:00.0": "GPU-AAAA-5E"}
    pynvml = nvml_that_fails_to_shut_down(monkeypatch, FakeNvml(swapped, {}))
    check = gpu_checks.nvml_check(pynvml, TORCH_GPUS)
    assert check.ok is False and "UUIDs differ" in check.detail
    assert "NVML did not shut down" in check.detail
    pynvml = nvml_that_fails_to_shut_down(monkeypatch, FakeNvml(UUIDS, {}))
    check = gpu_checks.nvml_check(pynvml, TORCH_GPUS)
    assert check.ok is True and "NVML did not shut down" in check.detail


def test_a_failed_nvml_shutdown_keeps_the_context_listing_and_notes_the_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The context check's child (its point stood in for) keeps the GPUs NVML listed when
    ``nvmlShutdown`` fails after the listing, and says so."""
    import os

    from harness.profiling import worker

    nvml_that_fails_to_shut_down(monkeypatch, FakeNvml(UUIDS, {"00000000:1A:00.0": [os.getpid()]}))
    monkeypatch.setattr(worker, "worker_device", lambda name: torch.device("cpu"))
    monkeypatch.setattr(worker, "Models", lambda device, compile_model: None)
    monkeypatch.setattr(worker, "run_point", lambda request, models: {"status": "ok"})
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: TORCH_GPUS[index])
    reply = gpu_checks._context_child(1)
    assert reply["status"] == "ok" and reply["listed"] == [1]
    assert "NVML did not shut down" in reply["message"]


def sanbench_refusing_what_exists(ran: list[Path]) -> object:
    """``subprocess.run`` of sanbench's fit, encode and predict, each refusing an ``--out`` that
    exists as sanbench does (exit 2: its message), else writing it."""
    import numpy as np

    def sanbench(command: list[str], **kwargs: object) -> SimpleNamespace:
        out = Path(command[command.index("--out") + 1])
        if out.exists():
            said = f"sanbench {command[1]}: {out} exists: add --overwrite"
            return SimpleNamespace(returncode=2, stderr=f"a warning\n{said}\n")
        ran.append(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if command[1] == "fit":
            out.mkdir()
        elif command[1] == "encode":
            np.save(out, np.zeros((2, 4)))
        else:
            out.write_text("line,sentence,label\n1,a,0\n2,b,1\n")
        return SimpleNamespace(returncode=0, stderr="")

    return sanbench


def test_the_fit_check_runs_again_on_the_same_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside breaker of issue 57: a second ``checks RUN`` failed ("already finished",
    "encoded.npy exists ... add --overwrite"): each run of the check writes into a new folder."""
    ran: list[Path] = []
    monkeypatch.setattr(gpu_checks, "run_child", sanbench_refusing_what_exists(ran))
    assert gpu_checks.encode_check(tmp_path).ok
    assert gpu_checks.encode_check(tmp_path).ok
    assert len(ran) == 12 and len(set(ran)) == 12


def test_a_failed_command_is_reported_by_its_sanbench_error_line_not_the_debug_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[Path] = []
    monkeypatch.setattr(gpu_checks, "run_child", sanbench_refusing_what_exists(ran))
    monkeypatch.setattr(gpu_checks.tempfile, "mkdtemp", lambda **kwargs: str(tmp_path))
    (tmp_path / "multi_cnn").mkdir()  # what an earlier fit left
    check = gpu_checks.encode_check(tmp_path)
    assert check.ok is False and "--debug" not in check.detail
    assert check.detail.endswith(
        f"exited 2: sanbench fit: {tmp_path / 'multi_cnn'} exists: add --overwrite"
    )


def test_checks_of_a_folder_without_profile_csv_say_so_in_one_line_and_run_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside breaker of issue 57: ``checks RUN`` of a folder with no sweep in it ran the fit
    commands (and a ``FileNotFoundError`` followed)."""
    monkeypatch.setattr(gpu_checks, "why_no_cuda", lambda: "")
    monkeypatch.setattr(gpu_checks, "run_child", lambda *args, **kwargs: pytest.fail("ran"))
    assert gpu_checks.main(["checks", str(tmp_path / "no-run")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "profile.csv" in err
    assert list(tmp_path.iterdir()) == []


def test_what_runs_before_the_held_imports_imports_no_heavy_library() -> None:
    """Outside breaker of issue 57: ``python -m harness.profiling.gpu_checks`` imports the
    ``harness.profiling`` package first, which imported jsonargparse (0.2-0.7 s at load 4-6)
    outside the interrupt hold: a Ctrl-C then gave Python's traceback. The package's names are
    imported when first asked for."""
    import subprocess
    import sys

    heavy = ("jsonargparse", "torch", "lightning", "pandas", "numpy")
    code = (
        "import sys, harness.profiling, harness.interrupts; "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
    from harness.profiling import ProfileOptions, options, run_profile

    assert ProfileOptions is options.ProfileOptions and callable(run_profile)


def test_run_as_a_program_the_context_check_starts_its_child_by_the_modules_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside tester (issue 57): run as ``python -m harness.profiling.gpu_checks checks RUN``,
    ``__name__`` is "__main__", and the context check started ``python -m __main__ context 1``
    ("Error while finding module specification for '__main__'"): on every machine with 2 GPUs
    ``nox -s bench`` ended "a GPU check failed". The child's command must name a module that
    resolves to this file, whose ``context`` words then run the context point."""
    import importlib.util
    import json
    import sys

    started: list[list[str]] = []

    def child(command: list[str], **kwargs: object) -> SimpleNamespace:
        started.append(command)
        reply = {"status": "ok", "message": "", "listed": [1]}
        return SimpleNamespace(returncode=0, stdout=json.dumps(reply) + "\n", stderr="")

    monkeypatch.setattr(gpu_checks, "__name__", "__main__")  # as ``python -m`` runs it
    monkeypatch.setattr(gpu_checks, "why_no_cuda", lambda: "")
    monkeypatch.setattr(gpu_checks, "nvml_module", lambda: object())
    passed = gpu_checks.Check("a check", True, "")
    monkeypatch.setattr(gpu_checks, "nvml_check", lambda nvml, gpus: passed)
    monkeypatch.setattr(
        gpu_checks, "fp16_tiles_check", lambda log: gpu_checks.Check("fp16", True, "")
    )
    monkeypatch.setattr(gpu_checks, "encode_check", lambda work: gpu_checks.Check("fit", True, ""))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: TORCH_GPUS[index])
    monkeypatch.setattr(gpu_checks, "run_child", child)
    (tmp_path / "profile.csv").write_text("encoder,device\n")
    checks = list(gpu_checks.run_checks(tmp_path))
    assert checks[2].ok is True, checks[2].detail
    (command,) = started
    assert command[:2] == [sys.executable, "-m"] and command[3:] == ["context", "1"]
    spec = importlib.util.find_spec(command[2])
    assert spec is not None and spec.origin == gpu_checks.__file__
    monkeypatch.setattr(gpu_checks, "_context_child", lambda asked: {"asked": asked})
    assert gpu_checks.main(command[3:]) == 0
    assert json.loads(capsys.readouterr().out) == {"asked": 1}


# the context check's child, stood in for: it starts a process of its own, writes both process
# ids, then sends a Ctrl-C to the process that started it (pytest's, running gpu_checks)
CHILD_INTERRUPTING = """#!/bin/sh
sleep 60 &
echo $$ $! > "{pids}"
sleep 0.2
kill -INT $PPID
wait
"""


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is no zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_ctrl_c_during_the_checks_stops_their_child_after_the_finished_lines_and_exits_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside tester (issue 57): a Ctrl-C while ``gpu_checks checks`` ran a check gave exit -2,
    a KeyboardInterrupt traceback and no check line (every line was printed at the end). The
    lines of the checks that ended come first, the child process (and what it started) is
    stopped, then one line and exit 130. The checks before the context check run as stood in
    for; its child is a shell script in place of Python."""
    import time

    pids = tmp_path / "pids"
    fake_python = tmp_path / "python"
    fake_python.write_text(CHILD_INTERRUPTING.format(pids=pids))
    fake_python.chmod(0o755)
    passed = gpu_checks.Check("NVML's GPU is torch's", True, "stood in for")
    monkeypatch.setattr(gpu_checks, "why_no_cuda", lambda: "")
    monkeypatch.setattr(gpu_checks, "nvml_module", lambda: object())
    monkeypatch.setattr(gpu_checks, "nvml_check", lambda nvml, gpus: passed)
    monkeypatch.setattr(gpu_checks, "encode_check", lambda run: pytest.fail("ran on"))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: TORCH_GPUS[index])
    monkeypatch.setattr(gpu_checks.sys, "executable", str(fake_python))
    (tmp_path / "profile.csv").write_text("encoder,device\n")
    started = time.monotonic()
    assert gpu_checks.main(["checks", str(tmp_path)]) == 130
    assert time.monotonic() - started < gpu_checks.CHILD_STOP_SECONDS  # SIGTERM sufficed
    out, err = capsys.readouterr()
    assert [line.split(": ")[0] for line in out.splitlines()] == [
        "GPU check, NVML's GPU is torch's",
        "GPU check, CUDA peak against the prediction",
    ]
    assert err == "gpu_checks: interrupted\n"
    shell, sleeper = (int(pid) for pid in pids.read_text().split())
    deadline = time.monotonic() + 2  # the orphaned ``sleep`` is reaped by init
    while running(sleeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(shell) and not running(sleeper)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["context", "x"], "gpu_checks context: 'x' is no GPU index"),
        (["context", "-1"], "usage: "),
        (["device", "extra"], "usage: "),
        (["checks"], "usage: "),
    ],
)
def test_bad_words_exit_2_in_one_line(
    argv: list[str], said: str, capsys: pytest.CaptureFixture
) -> None:
    """Outside tester (issue 57): ``context x`` ended in a ValueError traceback (exit 1) and
    ``device extra`` was accepted (exit 0)."""
    assert gpu_checks.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith(said), err


def test_a_failed_fp16_point_prints_its_failed_line_only_its_traceback_goes_to_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """Outside tester (issue 57): the fp16 point runs in this process, and its failure printed
    the worker's whole traceback on the console beside the check's FAILED line."""
    import sys

    from harness.profiling import worker

    def fails(request: dict, models: object) -> dict:
        print("Traceback (most recent call last):\nStepError: build: boom", file=sys.stderr)
        return {"status": "error", "message": "build: boom"}

    monkeypatch.setattr(worker, "Models", lambda device, compile_model: None)
    monkeypatch.setattr(worker, "run_point", fails)
    log = tmp_path / "gpu-checks.log"
    check = gpu_checks.fp16_tiles_check(log)
    assert check.ok is False and check.detail.startswith("the fp16 point failed: build: boom")
    assert str(log) in check.detail
    assert capsys.readouterr() == ("", "")
    assert "Traceback (most recent call last):" in log.read_text()
