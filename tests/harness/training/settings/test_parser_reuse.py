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


@pytest.mark.parametrize(
    ("before", "words"),
    [([*SST2, "--overwrite"], TREC), (TREC, [*SST2, "--seed", "5"])],
    ids=["sst2-then-trec", "trec-then-sst2"],
)
def test_a_fit_after_another_parses_as_in_a_new_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, before: list[str], words: list[str]
) -> None:
    """The config, its defaults and the command flags equal those of a parser built anew."""
    out = ["--out", str(tmp_path / "run")]
    monkeypatch.setattr(fit_cli, "BUILT_PARSERS", {})
    fresh = fit_cli_of([*words, *out])
    monkeypatch.setattr(fit_cli, "BUILT_PARSERS", {})
    fit_cli_of([*before, *out])
    reused = fit_cli_of([*words, *out])
    assert reused.config == fresh.config
    assert reused.parser.get_defaults() == fresh.parser.get_defaults()
    assert reused.config_yaml() == fresh.config_yaml()
    assert (reused.overwrite, fresh.overwrite) == (False, False)
    assert fit_cli_of([*words, *out, "--overwrite"]).overwrite
