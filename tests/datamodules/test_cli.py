"""``sanbench data stats`` on fixtures."""

import json

from harness.cli import main


def test_stats_json_reports_splits_drops_and_coverage(fixtures, capsys):
    code = main(
        [
            "data", "stats", "--task", "snli", "--data-dir", str(fixtures / "nli-jsonl"),
            "--embeddings", str(fixtures / "vectors" / "tiny.glove.txt"), "--json",
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["layout"] == "snli-jsonl"
    dev = {s["split"]: s for s in report["splits"]}["dev"]
    assert dev["examples"] == 3 and dev["dropped"] == {"no gold label ('-')": 1}
    assert sum(dev["labels"].values()) == 3
    assert 0 < dev["coverage"] < 1
    assert set(dev["length"]) == {"mean", "std", "p50", "p90", "p95", "p99", "max"}


def test_stats_table_shows_missing_splits(fixtures, tmp_path, capsys, monkeypatch):
    for name in ("s1.dev", "s2.dev", "labels.dev"):
        (tmp_path / name).write_bytes((fixtures / "senteval" / "SNLI" / name).read_bytes())
    monkeypatch.chdir(tmp_path)  # a short path keeps the table's cells from wrapping
    assert main(["data", "stats", "--task", "snli", "--data-dir", "."]) == 0
    out = capsys.readouterr().out
    assert "missing" in out and "s1.train" in out and "dev" in out


def test_stats_bad_file_prints_the_error(fixtures, capsys):
    folder = fixtures / "bad" / "label-out-of-range"
    assert main(["data", "stats", "--task", "sst1", "--data-dir", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "stsa.fine.train, line 3" in err and "'7'" in err
