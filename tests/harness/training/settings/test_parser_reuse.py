"""``FitCLI``'s parser is built once per process and datamodule class, and each fit parses with
its own copy (``harness/training/settings/fit_cli.py``, ``BUILT_PARSERS``): one fit's task
defaults and ``--overwrite`` never reach the next."""

from __future__ import annotations

from pathlib import Path

import pytest
from lightning.pytorch.cli import LightningCLI

from harness.training.settings import fit_cli
from harness.training.settings.fit_cli import FitCLI
from harness.training.settings.task_configs import seed_message_hidden

FIXTURES = Path(__file__).parents[3] / "datamodules" / "fixtures"
DATA = ["--data-dir", str(FIXTURES / "kim2014")]
SST2 = ["--task", "sst2", "--encoder", "multi_cnn", *DATA, "--model.dropout", "0.3"]
TREC = ["--task", "trec", "--encoder", "disan", *DATA, "--trainer.max_steps", "3"]


def fit_cli_of(words: list[str]) -> FitCLI:
    with seed_message_hidden():
        return FitCLI(words)


def test_a_second_fit_copies_the_parser_instead_of_building_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(fit_cli, "BUILT_PARSERS", {})
    builds = []
    build = LightningCLI.add_core_arguments_to_parser

    def counted(self: LightningCLI, parser: object) -> None:
        builds.append(parser)
        build(self, parser)

    monkeypatch.setattr(LightningCLI, "add_core_arguments_to_parser", counted)
    first = fit_cli_of([*SST2, "--out", str(tmp_path / "a")])
    second = fit_cli_of([*TREC, "--out", str(tmp_path / "b")])
    assert len(builds) == 1
    assert first.parser is not second.parser  # each parses with its own copy


def test_a_fit_after_another_parses_as_the_first_fit_of_a_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The config, its defaults and the command flags of a fit after another of another task
    and encoder (and --overwrite) equal those of the process's first fit of the same words."""
    out = ["--out", str(tmp_path / "run")]
    monkeypatch.setattr(fit_cli, "BUILT_PARSERS", {})
    first_trec = fit_cli_of([*TREC, *out])
    first_sst2 = fit_cli_of([*SST2, *out, "--overwrite", "--seed", "5"])
    for words, first in (([*TREC, *out], first_trec), ([*SST2, *out, "--seed", "5"], first_sst2)):
        again = fit_cli_of(words)
        assert again.config == first.config
        assert again.parser.get_defaults() == first.parser.get_defaults()
        assert again.config_yaml() == first.config_yaml()
        assert not again.overwrite
    assert first_sst2.overwrite and not first_trec.overwrite
