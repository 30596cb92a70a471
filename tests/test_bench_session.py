"""``nox -s bench``: a sweep with failed points (``profile`` exits 1) no longer skips the GPU
checks after it; the session fails at its end with the sweep's status (outside tester, issue
57). The device line comes before the predict-only step."""

from __future__ import annotations

import time
from pathlib import Path

import nox.command
import pytest

from tests.test_ci import noxfile  # loaded once: nox registers each session once per process


class Session:
    """Records what the session runs; ``profile --preset`` exits ``sweep_status``."""

    def __init__(self, sweep_status: int) -> None:
        self.sweep_status = sweep_status
        self.ran: list[list[str]] = []
        self.posargs: list[str] = ["--out", "runs/x"]

    def install(self, *args: str) -> None:
        pass

    def log(self, *args: object) -> None:
        pass

    def run(self, *command: str, **kwargs: object) -> bool:
        self.ran.append(list(command))
        if "--preset" in command and self.sweep_status:
            raise nox.command.CommandFailed(return_code=self.sweep_status)
        return True

    def error(self, message: str) -> None:
        raise SystemExit(message)


def test_failed_points_still_get_every_later_step_and_fail_the_session_at_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    session = Session(sweep_status=1)
    with pytest.raises(SystemExit, match="the sweep has failed points"):
        noxfile().bench(session)
    steps = [" ".join(command[:4]) for command in session.ran]
    assert steps[0] == "python -m harness.profiling.gpu_checks device"
    assert "python -m harness.profiling.gpu_checks checks" in steps
    assert steps[-1] == "python -m harness.profiling.overhead"


def test_a_sweep_stopped_by_ctrl_c_stops_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    session = Session(sweep_status=130)
    with pytest.raises(nox.command.CommandFailed):
        noxfile().bench(session)
    assert not any("checks" in command for command in session.ran)


class SlowClock:
    """``time`` for the noxfile: each reading 25 s after the last (a prediction over its 20 s)."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 25.0
        return self.now

    strftime = staticmethod(time.strftime)


def test_a_prediction_over_its_target_skips_nothing_and_fails_the_session_at_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CPU timing ended the session before the sweep and every GPU check (issue 57
    breaker: 70.2 s at load 7 on a CPU wheel)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(noxfile(), "time", SlowClock())
    session = Session(sweep_status=0)
    with pytest.raises(SystemExit, match=r"predict-only at L=384: 25\.0 s \(target < 20 s"):
        noxfile().bench(session)
    steps = [" ".join(command[:4]) for command in session.ran]
    assert "python -m harness.profiling.gpu_checks checks" in steps
    assert steps[-1] == "python -m harness.profiling.overhead"
