"""``profile.csv``: rows appended through the contract read back typed and labelled; a file
being written or lacking columns is reported, never misread."""

from __future__ import annotations

from pathlib import Path

import pytest

from reports.contracts.profile_run import (
    COLUMNS,
    KEY_COLUMNS,
    REQUIRED,
    profile_csv,
    read_profile,
    results_file,
    variant_label,
)


def _row(encoder: str, options: str, seq_len: int, **cells: object) -> dict[str, object]:
    row: dict[str, object] = dict.fromkeys(COLUMNS, "")
    row.update(encoder=encoder, options=options, seq_len=seq_len, mode="train", status="ok")
    row.update(batch_size=64, dim=300, device="cpu", dtype="float32", time_ms_median=1.5)
    row.update(time_ms_iqr=0.1, peak_mem_mb=12.0, params=1000, flops=2e9, noisy="False")
    row.update(cells)
    return row


def test_round_trip(tmp_path: Path) -> None:
    rows = results_file(tmp_path)
    rows.append(_row("disan", "", 16))
    rows.append(_row("disan", "attention_impl=chunked", 32, noisy="True"))
    frame = read_profile(tmp_path)
    assert set(COLUMNS) <= set(frame.columns) and set(REQUIRED) <= set(COLUMNS)
    assert frame["label"].tolist() == ["disan", "disan:attention_impl=chunked"]
    assert frame["seq_len"].tolist() == [16, 32] and frame["noisy"].tolist() == [False, True]
    assert results_file(tmp_path).done_keys() == {
        ("disan", "", "16", "train"),
        ("disan", "attention_impl=chunked", "32", "train"),
    }
    assert KEY_COLUMNS == ("encoder", "options", "seq_len", "mode")


def test_a_torn_last_line_is_left_out(tmp_path: Path) -> None:
    results_file(tmp_path).append(_row("mtsa", "", 16))
    with profile_csv(tmp_path).open("a") as handle:
        handle.write("mtsa,,32,tra")
    assert read_profile(tmp_path)["seq_len"].tolist() == [16]


@pytest.mark.parametrize("text", ["", "encoder,options,seq_len\n"])
def test_an_empty_or_header_only_file_has_no_rows_yet(tmp_path: Path, text: str) -> None:
    profile_csv(tmp_path).write_text(text)
    with pytest.raises(ValueError, match="no complete row yet"):
        read_profile(tmp_path)


def test_missing_file_and_columns_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="sanbench profile --out"):
        read_profile(tmp_path)
    profile_csv(tmp_path).write_text("encoder,seq_len\ndisan,16\n")
    with pytest.raises(ValueError, match=r"line 1: header lacks columns \['batch_size'"):
        read_profile(tmp_path)


def test_variant_labels() -> None:
    assert variant_label("disan", "") == "disan"
    assert variant_label("disan", "chunk_size=16") == "disan:chunk_size=16"
