"""The suite runner with an injected fake ``run_fit``: rows, resume, shards, failures."""

from __future__ import annotations

import csv
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import InputError
from harness.outdir import FolderBusyError
from harness.suite.grid import Shard, expand_grid
from harness.suite.runner import (
    COLUMNS,
    finished_keys,
    results_path,
    run_shard,
    suite_writer,
)
from harness.training.settings.fit_run import FitRun
from tests.harness.test_outdir import held_by_another_process


class FakeFit:
    """Records its calls; fails for the (task, encoder) pairs in ``fail``."""

    def __init__(self, fail: frozenset[tuple[str, str]] = frozenset()):
        self.calls: list[dict[str, Any]] = []
        self.fail = fail

    def __call__(self, run: FitRun) -> dict[str, Any]:
        kwargs = vars(run)
        self.calls.append(kwargs)
        assert kwargs["out_dir"].is_dir()
        if (kwargs["task"], kwargs["encoder"]) in self.fail:
            raise RuntimeError("CUDA out of memory\nsecond line")
        return {
            "task": kwargs["task"],
            "encoder": kwargs["encoder"],
            "params": 1000,
            "test_acc": 0.5 + 0.01 * kwargs["seed"] + 0.001 * (kwargs["fold"] or 0),
            "config": {"lr": 1},
            "versions": {"device": "cpu", "torch": "x", "commit": "abc"},
        }


def _run(out: Path, fit: FakeFit, shard: Shard | None = None, **grid: Any) -> Any:
    runs = expand_grid(
        grid.get("tasks", ["cr", "trec"]), grid.get("encoders", ["mtsa"]), 2, folds=3
    )
    return run_shard(
        runs,
        shard=shard or Shard(),
        out_dir=out,
        fit=fit,
        data_dir=Path("data"),
        embeddings=None,
        overrides={"trainer.max_steps": 3},
        log=lambda _: None,
    )


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_each_run_gets_its_folder_its_arguments_and_one_row(tmp_path: Path) -> None:
    fit = FakeFit()
    summary = _run(tmp_path, fit)
    assert len(summary.ran) == 5 and not summary.failed
    rows = _rows(results_path(tmp_path, Shard()))
    assert list(rows[0]) == list(COLUMNS)
    assert [(r["task"], r["replicate"]) for r in rows] == [
        ("cr", "fold0"),
        ("cr", "fold1"),
        ("cr", "fold2"),
        ("trec", "seed0"),
        ("trec", "seed1"),
    ]
    assert all(r["status"] == "ok" and r["device"] == "cpu" for r in rows)
    assert rows[4]["test_acc"] == "0.51" and rows[4]["fold"] == ""
    call = fit.calls[1]
    assert call["out_dir"] == tmp_path / "runs" / "cr" / "mtsa" / "fold1"
    assert (call["fold"], call["seed"], call["overrides"]) == (1, 0, {"trainer.max_steps": 3})


def test_resume_skips_finished_runs_and_duplicates_nothing(tmp_path: Path) -> None:
    _run(tmp_path, FakeFit())
    again = FakeFit()
    summary = _run(tmp_path, again, tasks=["trec", "cr", "sst2"])
    assert [c["task"] for c in again.calls] == ["sst2", "sst2"]
    assert len(summary.skipped) == 5
    rows = _rows(results_path(tmp_path, Shard()))
    keys = [(r["task"], r["encoder"], r["replicate"]) for r in rows]
    assert len(keys) == len(set(keys)) == 7


def test_a_failing_run_is_recorded_the_suite_goes_on_and_resume_retries_it(
    tmp_path: Path,
) -> None:
    summary = _run(tmp_path, FakeFit(fail=frozenset({("cr", "mtsa")})))
    assert len(summary.failed) == 3 and len(summary.ran) == 2
    rows = _rows(results_path(tmp_path, Shard()))
    failed = [r for r in rows if r["status"] == "failed"]
    assert failed[0]["error"] == "RuntimeError: CUDA out of memory | second line"
    assert "Traceback" in (tmp_path / "runs/cr/mtsa/fold0/error.txt").read_text()
    retry = FakeFit()
    _run(tmp_path, retry)
    assert [c["task"] for c in retry.calls] == ["cr", "cr", "cr"]
    assert len(finished_keys(tmp_path)) == 5


def test_a_run_that_died_with_the_process_runs_again(tmp_path: Path) -> None:
    _run(tmp_path, FakeFit())
    path = results_path(tmp_path, Shard())
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]) + lines[-1][:10])  # torn last row: the crash
    retry = FakeFit()
    _run(tmp_path, retry)
    assert [(c["task"], c["seed"]) for c in retry.calls] == [("trec", 1)]


def test_shards_share_a_folder_without_overlap_and_respect_each_other(tmp_path: Path) -> None:
    fits = [FakeFit() for _ in range(3)]
    for k, fit in enumerate(fits, start=1):
        _run(tmp_path, fit, Shard(k, 3))
    called = [(c["task"], c["seed"], c["fold"]) for fit in fits for c in fit.calls]
    assert len(called) == len(set(called)) == 5
    assert len(list(tmp_path.glob("results-*-of-3.csv"))) == 3
    # A different split of the same folder finds everything done in any shard's file.
    late = FakeFit()
    summary = _run(tmp_path, late, Shard(1, 1))
    assert late.calls == [] and len(summary.skipped) == 5


@pytest.mark.parametrize("bad", [KeyboardInterrupt, SystemExit])
def test_interrupts_are_not_swallowed(tmp_path: Path, bad: type[BaseException]) -> None:
    def fit(run: FitRun) -> dict[str, Any]:
        raise bad

    with pytest.raises(bad):
        _run(tmp_path, fit)  # type: ignore[arg-type]
    assert not results_path(tmp_path, Shard()).exists()


class ConfigWritingFit(FakeFit):
    """Writes the run's fit config as ``run_fit`` does, then returns fake metrics."""

    def __call__(self, run: FitRun) -> dict[str, Any]:
        (run.out_dir / "fit_config.yaml").write_text(run.to_yaml())
        return super().__call__(run)


def test_a_rerun_with_another_budget_is_refused_instead_of_reusing_rows(
    trec_dir: Path, tmp_path: Path
) -> None:
    runs = expand_grid(["trec"], ["multi_cnn"], 2)

    def run(fit: FakeFit, steps: int) -> Any:
        return run_shard(
            runs, shard=Shard(), out_dir=tmp_path, fit=fit, data_dir=trec_dir,
            embeddings=None, overrides={"trainer.max_steps": steps}, log=lambda _: None,
        )  # fmt: skip

    assert len(run(ConfigWritingFit(), 3).ran) == 2
    rows = _rows(results_path(tmp_path, Shard()))
    again = ConfigWritingFit()
    with pytest.raises(InputError) as raised:
        run(again, 5)
    message = str(raised.value)
    assert message.count("trainer.max_steps: 3 there, 5 now") == 2  # both runs named
    assert "seed0" in message and "seed1" in message and "another --out" in message
    assert again.calls == [] and _rows(results_path(tmp_path, Shard())) == rows
    assert len(run(again, 3).skipped) == 2  # the same settings: the rows are theirs


@pytest.mark.slow  # a second process
@pytest.mark.parametrize(
    ("held", "shard", "launched", "refused"),
    [
        ("1-of-1", None, False, True),  # jobs launch every unfinished shard
        ("1-of-2", None, False, True),
        ("jobs", None, False, True),
        ("1-of-1", Shard(1, 2), False, True),  # another plan: the same cells
        ("jobs", Shard(1, 2), False, True),  # the jobs run every cell
        ("jobs", Shard(1, 2), True, False),  # a job of theirs
        ("1-of-2", Shard(2, 2), False, False),  # the shards of one plan run side by side
    ],
)
def test_a_suite_another_process_runs_is_refused_before_anything_is_written(
    tmp_path: Path, held: str, shard: Shard | None, launched: bool, refused: bool
) -> None:
    """Outside check A item 7: 'suite --jobs 2 --launcher process' on a folder a plain suite
    was writing made jobs/, rewrote tables/ and ended 'internal error'-like: its job died with
    FolderBusyError, exit 1."""
    with (
        held_by_another_process(tmp_path, f".sanbench-{held}.lock") as pid,
        pytest.raises(FolderBusyError, match=f"PID {pid}\\)") if refused else nullcontext(),
        suite_writer(tmp_path, shard, launched),
    ):
        pass


@pytest.mark.slow  # a second process, the command
def test_suite_jobs_exit_2_while_a_suite_runs_in_the_folder(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "lk"
    data = ["--data-dir", str(trec_dir), "--embeddings", str(trec_dir / "glove.txt")]
    argv = ["suite", "--tasks", "trec", "--encoders", "multi_cnn", *data, "--max-steps", "1"]
    with held_by_another_process(out, ".sanbench-1-of-1.lock") as pid:
        before = sorted(p.name for p in out.iterdir())
        status = main([*argv, "--jobs", "2", "--launcher", "process", "--out", str(out)])
        assert sorted(p.name for p in out.iterdir()) == before  # no jobs/, no tables/
    assert status == 2
    error = capsys.readouterr().err
    assert f"{out} is being written by another sanbench process (PID {pid})" in error


def _cut(path: Path, how: str) -> None:
    """Leave ``path`` emptied, ``{}`` or cut right after ``max_length: 4`` (mid-value)."""
    text = path.read_text()
    cut = {"empty": "", "braces": "{}\n", "cut": text[: text.index("max_length: 4") + 13]}
    path.write_text(cut[how])


@pytest.mark.parametrize("how", ["empty", "braces", "cut"])
def test_a_run_whose_fit_config_is_not_whole_is_named_as_such_by_the_suite(
    trec_dir: Path, tmp_path: Path, how: str
) -> None:
    """Issue 54 (f19c): a finished run's fit_config.yaml emptied or '{}' was '--out
    RUN_FOLDER: not a sanbench run folder ... Choose another --out' (fit's words, an --out
    never typed), and one cut mid-value 'finished with run.compile: not set there, false now;
    ... these runs were made with other settings': the file is cut, not another run's."""
    from harness.suite.runner import other_settings_problems, settings_problems

    runs = expand_grid(["trec"], ["multi_cnn"], 2)
    overrides = {"trainer.max_steps": 3, "data.max_length": 40}
    run_shard(
        runs, shard=Shard(), out_dir=tmp_path, fit=ConfigWritingFit(), data_dir=trec_dir,
        embeddings=None, overrides=overrides, log=lambda _: None,
    )  # fmt: skip
    config = tmp_path / "runs" / "trec" / "multi_cnn" / "seed0" / "fit_config.yaml"
    _cut(config, how)
    before = config.read_text()
    for max_length in (40, 30):
        again = overrides | {"data.max_length": max_length}
        suite = settings_problems(runs, tmp_path, trec_dir, None, again)
        grouped = other_settings_problems(runs, tmp_path, trec_dir, None, again)
        for lines in (suite, grouped):
            assert len(lines) == 1, lines
            assert lines[0].startswith(f"{config}: not a whole fit config sanbench wrote"), lines
            assert "--out" in lines[0] and f"--out {config.parent}" not in lines[0], lines
            assert "other settings" not in lines[0] and "there," not in lines[0], lines
        with pytest.raises(InputError) as raised:
            run_shard(
                runs, shard=Shard(), out_dir=tmp_path, fit=ConfigWritingFit(),
                data_dir=trec_dir, embeddings=None, overrides=again, log=lambda _: None,
            )  # fmt: skip
        assert str(raised.value) == suite[0]
        assert "the run finished" in suite[0] and f"delete {config.parent}" not in suite[0]
    assert config.read_text() == before
    results_path(tmp_path, Shard()).unlink()  # no row: a started run, trained again if deleted
    (line,) = settings_problems(runs, tmp_path, trec_dir, None, overrides)
    assert f"delete {config.parent} to train that run again" in line, line
