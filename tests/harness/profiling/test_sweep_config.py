"""A profile's options resolve into one sweep (``harness.profiling.sweep_config``), its lengths
and modes parsed once: by the options' check, which the sweep then reads (issue 55.8 breaker: a
traced ``profile`` parsed ``--lengths`` twice)."""

from __future__ import annotations

import pytest

from harness.errors import InputError
from harness.profiling import grid
from harness.profiling.options import ProfileOptions
from harness.profiling.sweep_config import sweep_config


def test_each_length_list_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    parse = grid.parse_lengths

    def counted(text: str, option: str = "--lengths") -> list[int]:
        parsed.append(text)
        return parse(text, option)

    monkeypatch.setattr(grid, "parse_lengths", counted)
    options = ProfileOptions(
        preset="quick", encoders="multi_head", lengths="8,16", predict_lengths="32:64:32"
    )
    config = sweep_config(options)
    assert (config.lengths, config.predict_lengths, config.modes) == (
        (8, 16),
        (32, 64),
        ("infer", "train"),
    )
    assert sorted(parsed) == ["32:64:32", "8,16"]


def test_bad_lengths_and_modes_are_each_named_before_the_sweep() -> None:
    with pytest.raises(InputError) as raised:
        ProfileOptions(lengths="8,x", predict_lengths="", modes="infer,fly")
    lines = str(raised.value).splitlines()
    assert [line.split()[:4] for line in lines] == [
        ["--lengths", "8,x:", "bad", "part"],
        ["--predict-lengths", "'':", "bad", "part"],
        ["--modes", "infer,fly:", "bad", "part"],  # as --lengths names its bad part
    ]


def test_an_option_under_its_old_name_is_recorded_under_its_current_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--encoders mtsa:impl=tensor`` (the check warns of the old name as it builds each
    variant) is labelled, recorded and suggested (the profile page's predict-further hint) as
    ``mtsa:attention_impl=tensor``."""
    from harness.profiling import options as module

    monkeypatch.setattr(module, "option_problems", lambda specs, dim: [])  # no meta build
    options = ProfileOptions(preset="quick", encoders="mtsa:impl=tensor,disan", lengths="8")
    config = sweep_config(options)
    assert [spec.label for spec in config.encoders] == ["mtsa:attention_impl=tensor", "disan"]
