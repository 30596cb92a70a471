"""``--overwrite`` deletes only a run folder sanbench made; anything else is refused untouched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.errors import InputError
from harness.outdir import OutIsFileError
from harness.training.run_folder import MARKER, RunFolderError, prepare_run_folder
from reports.contracts.fit_folder import CONFIG as FILE_NAME
from tests.harness.problem_lines import files_lines, problem_lines

CONFIG = "model:\n  encoder: multi_cnn\n"
RUN_KEYS = ("early_stopping_patience", "ema_decay", "checkpoint_every_minutes",
            "checkpoint_every_n_steps", "compile")  # fmt: skip


def whole(text: str) -> str:
    """The few keys of ``text`` in a whole fit config (every section and key each one holds)."""
    config = yaml.safe_load(text)
    skeleton = {"trainer": {}, "model": {}, "data": {}, "run": dict.fromkeys(RUN_KEYS)}
    sections = {name: {**keys, **(config.get(name) or {})} for name, keys in skeleton.items()}
    return yaml.safe_dump({"out": None, **config, **sections}, sort_keys=False)


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}


def test_overwrite_refuses_a_folder_sanbench_did_not_make(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "train.txt").write_text("precious")
    (data / "sub" / "more.txt").write_text("also precious")
    before = _files(data)
    with pytest.raises(RunFolderError, match="not made by sanbench as a run folder") as raised:
        prepare_run_folder(data, CONFIG, overwrite=True, writer=True)
    assert isinstance(raised.value, InputError)
    assert _files(data) == before


def test_overwrite_refuses_a_config_without_the_marker(tmp_path: Path) -> None:
    """A ``fit_config.yaml`` anyone could have written is not enough to delete a folder."""
    folder = tmp_path / "looks_like_a_run"
    folder.mkdir()
    (folder / FILE_NAME).write_text("model:\n  encoder: bilstm\n")
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match=MARKER):
        prepare_run_folder(folder, CONFIG, overwrite=True, writer=True)
    assert (folder / "notes.txt").read_text() == "mine"


def test_overwrite_deletes_a_run_folder_sanbench_made(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepare_run_folder(run, "model:\n  encoder: bilstm\n", overwrite=False, writer=True)
    assert (run / MARKER).is_file()
    (run / "metrics.json").write_text("{}")
    prepare_run_folder(run, CONFIG, overwrite=True, writer=True)
    assert sorted(_files(run)) == sorted([MARKER, FILE_NAME])
    assert (run / FILE_NAME).read_text() == CONFIG


def test_a_file_as_out_is_refused_untouched(tmp_path: Path) -> None:
    target = tmp_path / "results.csv"
    target.write_text("a,b\n")
    for overwrite in (False, True):
        with pytest.raises(OutIsFileError):
            prepare_run_folder(target, CONFIG, overwrite=overwrite, writer=True)
    assert target.read_text() == "a,b\n"


def test_fit_overwrite_on_the_current_directory_exits_2_and_deletes_nothing(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "thesis.tex").write_text("years of work")
    monkeypatch.chdir(work)
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir)]
    assert main([*argv, "--out", ".", "--overwrite"]) == 2
    error = capsys.readouterr().err
    assert "not made by sanbench as a run folder" in error and "Traceback" not in error
    assert os.listdir(work) == ["thesis.tex"]


# --- issue 56.11, 56.12: --out is checked before any data is read, and says what it is ---------


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fits whose datamodule, model and trainer were built (their data read)."""
    from harness.training.settings.fit_cli import FitCLI

    built: list[str] = []
    build = FitCLI.build

    def recorded(self: FitCLI, callbacks: object = None) -> None:
        built.append(str(self.out_dir))
        build(self, callbacks)

    monkeypatch.setattr(FitCLI, "build", recorded)
    return built


def _fit(trec_dir: Path, out: Path, *more: str) -> list[str]:
    return ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir),
            "--embeddings", str(trec_dir / "glove.txt"), "--out", str(out), *more]  # fmt: skip


def test_a_smaller_budget_is_refused_before_the_data_is_read(
    trec_dir: Path, tmp_path: Path, builds: list[str], capsys: pytest.CaptureFixture
) -> None:
    from harness.training.settings.fit_cli import FitCLI

    out = tmp_path / "run"
    saved = FitCLI(_fit(trec_dir, out, "--trainer.max_epochs", "3")[1:]).config_yaml()
    prepare_run_folder(out, saved, overwrite=False, writer=True)
    (out / "checkpoints").mkdir()
    (out / "checkpoints" / "last.ckpt").write_bytes(b"saved")  # a started run, not a killed start
    before = _files(out)
    assert main(_fit(trec_dir, out, "--trainer.max_epochs", "2")) == 2
    error = capsys.readouterr().err
    assert "holds another run" in error and "trainer.max_epochs: 3 there, 2 now" in error
    assert builds == [] and _files(out) == before


def test_out_naming_a_file_is_called_a_file_before_the_data_is_read(
    trec_dir: Path, tmp_path: Path, builds: list[str], capsys: pytest.CaptureFixture
) -> None:
    target = tmp_path / "results.csv"
    target.write_text("a,b\n")
    for overwrite in ([], ["--overwrite"]):
        assert main(_fit(trec_dir, target, *overwrite)) == 2
        (line,) = files_lines(capsys.readouterr().err)  # no pointer: not the words' problem
        assert f"--out {target} is a file, not a folder" in line, line
        assert "not a sanbench fit folder" not in line
    assert builds == [] and target.read_text() == "a,b\n"


def test_a_folder_of_yours_is_refused_before_the_data_is_read(
    trec_dir: Path, tmp_path: Path, builds: list[str], capsys: pytest.CaptureFixture
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert main(_fit(trec_dir, mine)) == 2
    said = f"--out {mine} holds notes.txt, which sanbench did not make"
    assert said in capsys.readouterr().err
    assert builds == [] and _files(mine) == {"notes.txt": "mine"}


@pytest.mark.parametrize("value", ["--trainer.max_steps 0", "--data.batch_size 0"])
def test_a_folder_of_yours_is_named_beside_a_refused_value(
    value: str,
    trec_dir: Path,
    tmp_path: Path,
    builds: list[str],
    capsys: pytest.CaptureFixture,
) -> None:
    """``fit ... --out userdir --trainer.max_steps 0`` named the value alone, the folder once it
    was fixed, in other words than suite's and tune's (outside check 5x item 3)."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert main([*_fit(trec_dir, mine), *value.split()]) == 2
    lines = problem_lines(capsys.readouterr().err, "fit")
    assert len(lines) == 2 and value in lines[0], lines
    assert f"--out {mine} holds notes.txt, which sanbench did not make" in lines[1], lines
    assert builds == [] and _files(mine) == {"notes.txt": "mine"}


def test_an_out_that_cannot_be_made_is_one_line_before_the_data_is_read(
    trec_dir: Path, tmp_path: Path, builds: list[str], capsys: pytest.CaptureFixture
) -> None:
    """Issue 56 (H11.1): a raw ``[Errno 2]`` after the data was read."""
    (tmp_path / "notes.txt").write_text("mine")
    for out in (Path("/proc/nope/x"), tmp_path / "notes.txt" / "run"):
        assert main(_fit(trec_dir, out)) == 2
        (line, *rest) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"sanbench fit: --out {out}: cannot be made") and "Errno" not in line
        assert [r for r in rest if "--debug" not in r] == []
    assert builds == [] and _files(tmp_path) == {"notes.txt": "mine"}


def test_an_out_through_a_symlink_to_nothing_is_one_line_before_the_data_is_read(
    trec_dir: Path, tmp_path: Path, builds: list[str], capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #54 (brief f54h item 2): ``sanbench fit: [Errno 17] File exists:
    'F15'`` once the data was read."""
    link = tmp_path / "F15"
    link.symlink_to("realdir3")
    for out, said in ((link, ""), (link / "run", f" {link} is")):
        assert main(_fit(trec_dir, out)) == 2
        (line, *rest) = capsys.readouterr().err.splitlines()
        expected = f"sanbench fit: --out {out}:{said} a symlink to realdir3, which does not exist"
        assert line.startswith(f"{expected}; nothing was created"), line
        assert [r for r in rest if "--debug" not in r] == []
    assert builds == [] and os.listdir(tmp_path) == ["F15"]


@pytest.mark.parametrize("vectors", [None, "glove.6B.50d.txt"])
def test_a_run_saved_with_the_old_embedding_dim_default_is_the_same_run(
    tmp_path: Path, vectors: str | None
) -> None:
    """Until 2026-11-29 ``data.embedding_dim`` defaulted to 300, the random vectors' width, and
    was unused beside a vectors file; now it is unset (null) by default. A folder saved before
    resumes: 300 and null are one setting (the random vectors' width is 300 either way)."""
    from harness.training.run_folder import differences_from_saved

    embeddings = f"  embeddings: {vectors}\n" if vectors else ""
    (tmp_path / FILE_NAME).write_text(whole(f"{CONFIG}data:\n  embedding_dim: 300\n{embeddings}"))
    now = whole(f"{CONFIG}data:\n  embedding_dim: null\n{embeddings}")
    assert differences_from_saved(tmp_path, now) == []
    other = whole(f"{CONFIG}data:\n  embedding_dim: 100\n{embeddings}")
    assert differences_from_saved(tmp_path, other) == ["data.embedding_dim: 300 there, 100 now"]


SGD = "optimizer:\n  class_path: torch.optim.SGD\n  init_args:\n    lr: {lr}\n    momentum: 0.0\n"
STEP_LR = "lr_scheduler:\n  class_path: torch.optim.lr_scheduler.StepLR\n  init_args:\n"
STEP_LR += "    step_size: 1\n    gamma: 0.1\n"


def test_another_run_is_named_by_the_arguments_that_differ_not_whole_mappings(
    tmp_path: Path,
) -> None:
    """Outside check of #56, item 6: a rerun with ``--optimizer.lr 0.07`` over a run with 0.05
    was refused with ``optimizer.init_args: {'lr': 0.05, 'momentum': 0.0, ..., 'fused': None}
    there, {...} now``, and a scheduler left out with ``lr_scheduler.init_args: {...} there,
    None now`` beside its class's line."""
    from harness.training.run_folder import differences_from_saved

    (tmp_path / FILE_NAME).write_text(whole(f"{CONFIG}{SGD.format(lr=0.05)}{STEP_LR}"))
    now = whole(f"{CONFIG}{SGD.format(lr=0.07)}lr_scheduler: null\n")
    assert differences_from_saved(tmp_path, now) == [
        "lr_scheduler.class_path: torch.optim.lr_scheduler.StepLR there, not set now",
        "optimizer.init_args.lr: 0.05 there, 0.07 now",
    ]


@pytest.mark.parametrize("held", ["hello\n", "model: [\n", "- model\n", "trainer: {}\n", ""])
def test_a_users_fit_config_yaml_makes_no_run_folder(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture, held: str
) -> None:
    """Outside check A item 8: a fit_config.yaml holding 'hello' in --out was 'internal error:
    AttributeError: 'str' object has no attribute 'items'', exit 1."""
    out = tmp_path / "fc"
    out.mkdir()
    (out / FILE_NAME).write_text(held)
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir)]
    assert main([*argv, "--out", str(out)]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if "--debug" not in line]
    assert lines == [
        f"sanbench fit: --out {out}: its {FILE_NAME} is not a whole fit config sanbench wrote "
        "(cut or edited by hand?), so no run there can be checked or resumed; nothing was "
        "touched. Choose another --out (a new or empty folder), or restore that file if "
        "sanbench wrote it"
    ]
    assert os.listdir(out) == [FILE_NAME] and (out / FILE_NAME).read_text() == held


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_folder_holding_only_empty_folders_is_empty_as_for_every_command(
    tmp_path: Path, overwrite: bool
) -> None:
    """Outside check A item 9: ``emp/`` holding only the user's empty ``data/`` was refused by
    fit ('not empty and has no fit_config.yaml') and taken by suite, profile, ...; every command
    takes it now (harness.outdir: empty of files), and --overwrite deletes no folder of it."""
    out = tmp_path / "emp"
    (out / "data" / "raw").mkdir(parents=True)
    prepare_run_folder(out, CONFIG, overwrite=overwrite, writer=True)
    assert (out / "data" / "raw").is_dir() and (out / FILE_NAME).read_text() == CONFIG
    assert (out / MARKER).is_file()


EARLY_STOPPING = ["--run.early_stopping_patience", "0", "--trainer.callbacks+=EarlyStopping"]
EARLY_STOPPING += ["--trainer.callbacks.monitor", "val_acc", "--trainer.callbacks.mode", "max"]


def test_a_users_early_stopping_run_is_its_own_commands_run(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Outside check of #54 (brief f54h item 1): a run with ``--trainer.callbacks+=EarlyStopping``
    records ``check_on_train_epoch_end: false`` (sanbench's setting of the unset value), so its
    own command (unset) was refused as another run ('runs/C1 holds another run
    (trainer.callbacks: [...] there, [...] now)'), finished or stopped; and a changed argument
    of a callback named both lists whole."""
    out = tmp_path / "C1"
    words = _fit(trec_dir, out, "--trainer.max_steps", "2", *EARLY_STOPPING)
    assert main([*words, "--trainer.callbacks.patience", "5"]) == 0, capsys.readouterr().err
    metrics = (out / "metrics.json").read_text()
    assert main([*words, "--trainer.callbacks.patience", "5"]) == 0, capsys.readouterr().err
    assert (out / "metrics.json").read_text() == metrics  # finished: nothing trained again
    capsys.readouterr()
    assert main([*words, "--trainer.callbacks.patience", "3"]) == 2
    error = capsys.readouterr().err
    assert "holds another run (trainer.callbacks[0].init_args.patience: 5 there, 3 now)" in error


ES = "lightning.pytorch.callbacks.EarlyStopping"
TIMER = {"class_path": "lightning.pytorch.callbacks.Timer", "init_args": {"duration": None}}


def test_a_list_of_callbacks_is_compared_entry_by_entry(tmp_path: Path) -> None:
    from harness.training.run_folder import differences_from_saved

    def config(*callbacks: dict) -> str:
        sections = {"model": {"encoder": "multi_cnn"}, "trainer": {"callbacks": list(callbacks)}}
        return whole(yaml.safe_dump(sections, sort_keys=False))

    def stopping(patience: int, check: bool | None) -> dict:
        init_args = {"monitor": "val_acc", "patience": patience, "check_on_train_epoch_end": check}
        return {"class_path": ES, "init_args": init_args}

    (tmp_path / FILE_NAME).write_text(config(TIMER, stopping(5, False)))
    assert differences_from_saved(tmp_path, config(TIMER, stopping(5, None))) == []
    assert differences_from_saved(tmp_path, config(TIMER, stopping(3, None))) == [
        "trainer.callbacks[1].init_args.patience: 5 there, 3 now"
    ]
    assert differences_from_saved(tmp_path, config(TIMER, stopping(5, True))) == [
        "trainer.callbacks[1].init_args.check_on_train_epoch_end: false there, true now"
    ]
    assert differences_from_saved(tmp_path, config(TIMER)) == [
        f"trainer.callbacks[1]: {{class_path: {ES}, init_args: {{monitor: val_acc, patience: 5, "
        "check_on_train_epoch_end: false}} there, not set now"
    ]


def test_another_run_is_named_in_the_values_a_user_writes(tmp_path: Path) -> None:
    """Short check 54j item 4: the reproduce rerun refusal said 'model.width_scale:
    0.3333333333333333 there, None now' and "model.optimizer: 'adam' there, None now"."""
    from harness.training.run_folder import as_written, differences_from_saved

    (tmp_path / FILE_NAME).write_text(whole(f"{CONFIG}  width_scale: 0.3333333333333333\n"))
    assert differences_from_saved(tmp_path, whole(f"{CONFIG}  width_scale: null\n")) == [
        "model.width_scale: 0.333 there, not set now"
    ]
    assert as_written("adam", None) == ("adam", "not set")
    assert as_written(0.3333, 0.3334) == ("0.3333", "0.3334")  # told apart


def test_a_copied_fit_config_beside_a_users_file_is_no_run_folder_to_empty(
    tmp_path: Path,
) -> None:
    """Issue 54: ``fit -c u/fit_config.yaml --out u``, ``u`` holding a fit_config.yaml copied
    from a run beside the user's ``mine.txt`` (no marker), was taken for a killed start of the
    same run: ``mine.txt`` was deleted and the run trained there. It is a folder of the user's."""
    folder = tmp_path / "u"
    folder.mkdir()
    (folder / FILE_NAME).write_text(CONFIG)
    (folder / "mine.txt").write_text("precious")
    before = _files(folder)
    with pytest.raises(RunFolderError, match=r"holds fit_config\.yaml, mine\.txt.*did not make"):
        prepare_run_folder(folder, CONFIG, overwrite=False, writer=True)
    assert _files(folder) == before


@pytest.mark.parametrize("checkpoint", [False, True])
def test_a_killed_start_of_another_run_is_started_afresh_not_refused(
    tmp_path: Path, checkpoint: bool
) -> None:
    """Issue 54 (a leftover of outside check 13y): a start killed before its first checkpoint
    refused any other run ("holds another run") though nothing in it can be resumed; it now
    starts the new run afresh. A run with a checkpoint is still another run."""
    run = tmp_path / "run"
    prepare_run_folder(run, whole("model:\n  encoder: bilstm\n"), overwrite=False, writer=True)
    (run / "logs" / "version_0").mkdir(parents=True)  # Lightning's, as a killed start leaves
    (run / "logs" / "version_0" / "metrics.csv").write_text("epoch,step\n")
    if checkpoint:
        (run / "checkpoints").mkdir()
        (run / "checkpoints" / "last.ckpt").write_bytes(b"saved")
        with pytest.raises(RunFolderError, match="holds another run"):
            prepare_run_folder(run, whole(CONFIG), overwrite=False, writer=True)
        return
    prepare_run_folder(run, whole(CONFIG), overwrite=False, writer=True)
    assert sorted(_files(run)) == sorted([MARKER, FILE_NAME])
    assert (run / FILE_NAME).read_text() == whole(CONFIG)


def test_a_fit_config_cut_short_is_said_so_not_another_run(
    trec_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Issue 54 (f19c item 2): a run's fit_config.yaml cut right after 'max_length: 4' was
    'holds another run (run.compile: not set there, false now; ...)': the file is cut."""
    from harness.training.settings.fit_run import FitRun

    out = tmp_path / "run"
    text = FitRun("trec", "multi_cnn", trec_dir, out, overrides={"data.max_length": 40}).to_yaml()
    prepare_run_folder(out, text, overwrite=False, writer=True)
    (out / "metrics.json").write_text("{}")  # finished: not a killed start, begun afresh
    cut = text[: text.index("max_length: 4") + 13]
    (out / FILE_NAME).write_text(cut)
    argv = ["fit", "--task", "trec", "--encoder", "multi_cnn", "--data-dir", str(trec_dir)]
    capsys.readouterr()
    assert main([*argv, "--out", str(out), "--data.max_length", "40"]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if "--debug" not in line]
    assert len(lines) == 1 and "another run" not in lines[0], lines
    assert f"--out {out}: its {FILE_NAME} is not a whole fit config sanbench wrote" in lines[0]
    assert (out / FILE_NAME).read_text() == cut


@pytest.mark.parametrize("mine", ["notes.txt", "logs/notes/x.txt", "checkpoints/mine.txt"])
def test_a_killed_start_holding_a_file_of_the_users_is_never_emptied(
    tmp_path: Path, mine: str
) -> None:
    """Outside check 16y, item 1: ``fit`` over a killed start's folder in which the user had put
    ``notes.txt`` (or ``logs/notes/x.txt``) trained another encoder there, exit 0, the files
    gone. Such a folder is no killed start: another run is refused, nothing touched."""
    run = tmp_path / "run"
    prepare_run_folder(run, whole("model:\n  encoder: bilstm\n"), overwrite=False, writer=True)
    (run / "logs" / "version_0").mkdir(parents=True)
    (run / mine).parent.mkdir(parents=True, exist_ok=True)
    (run / mine).write_text("mine")
    before = _files(run)
    with pytest.raises(RunFolderError, match="holds another run"):
        prepare_run_folder(run, whole(CONFIG), overwrite=False, writer=True)
    prepare_run_folder(run, whole("model:\n  encoder: bilstm\n"), overwrite=False, writer=True)
    assert _files(run) == before  # the same run goes on beside the file
