"""Unit tests of the profiling building blocks: grids, allocator choice, OOM detection, rows."""

from __future__ import annotations

import pytest
import torch

from harness.measurement.profiled_step import MODES, Point
from harness.measurement.tensor_memory import live_bytes
from harness.profiling import allocator, grid
from harness.profiling.measure import is_oom
from harness.profiling.sweep import check_compatible, make_row
from harness.profiling.sweep_config import SweepConfig
from reports.contracts.profile_run import COLUMNS
from reports.contracts.profile_run import ENVIRONMENT_COLUMNS as ENV_COLUMNS
from tests.harness.problem_lines import problem_lines


def test_parse_lengths_ranges_lists_and_errors() -> None:
    assert grid.parse_lengths("16:64:16") == [16, 32, 48, 64]
    assert grid.parse_lengths("64, 16,32:48:16,16") == [16, 32, 48, 64]
    assert len(grid.parse_lengths(grid.PRESETS["paper"].lengths)) == 24
    for bad in ("16:8:4", "a,b", "0", "16:64:0", ""):
        with pytest.raises(ValueError, match="--lengths"):
            grid.parse_lengths(bad)


@pytest.mark.parametrize(
    ("spelled", "shown"),
    [
        ("16:4096:16", "16:4096:16"),  # not 256 numbers (outside check b56c of #56, item 9)
        ("16,32,64", "16,32,64"),
        ("16,32", "16,32"),
        ("8", "8"),
        ("16:64:16,100,200,300,1000", "16:64:16,100:300:100,1000"),
    ],
)
def test_lengths_are_shown_as_spelled_and_read_back(spelled: str, shown: str) -> None:
    assert grid.lengths_text(grid.parse_lengths(spelled)) == shown
    assert grid.parse_lengths(shown) == grid.parse_lengths(spelled)


@pytest.mark.parametrize(
    ("text", "asked"), [("1:10001:1", "10,001"), ("1:5000:1,5001:10000:1,20000", "10,001")]
)
def test_an_absurd_length_grid_is_refused_saying_how_many_it_asks_for(
    text: str, asked: str
) -> None:
    """Issue 56 (H11.3): ``--predict-lengths 8:1000000000:1`` built a billion lengths in memory
    (killed after a minute); the count is taken before any length is made."""
    assert len(grid.parse_lengths("1:10000:1")) == grid.MAX_LENGTHS  # the most an option takes
    with pytest.raises(ValueError, match=f"--predict-lengths {text}: asks for {asked} lengths"):
        grid.parse_lengths(text, "--predict-lengths")


def test_profile_refuses_a_billion_lengths_in_one_line_at_once(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    from harness.cli import main

    out = tmp_path / "sweep"
    words = ["profile", "--predict-only", "--predict-lengths", "8:1000000000:1", "--out", str(out)]
    assert main(words) == 2
    (line,) = problem_lines(capsys.readouterr().err, "profile")
    assert "asks for 999,999,993 lengths; a sweep takes at most 10,000" in line, line
    assert not out.exists()


def names(specs: list[grid.EncoderSpec]) -> list[str]:
    return [spec.label for spec in specs]


def test_select_encoders_defaults_all_and_unknown() -> None:
    registered = ["disan", "bi_blosan", "extra"]
    chosen, missing = grid.select_encoders(None, registered)
    # the papers' figures ran DiSAN's and Bi-BloSAN's naive attention, not the default chunked
    assert names(chosen) == ["disan:attention_impl=naive", "bi_blosan:attention_impl=naive"]
    assert "mtsa" in missing and "extra" not in names(chosen)
    everything, missing = grid.select_encoders("all", registered)
    assert names(everything) == registered and missing == []
    with pytest.raises(ValueError, match="nope"):
        grid.select_encoders("disan,nope", registered)
    assert grid.parse_names("train,infer", MODES, "--modes") == ["train", "infer"]
    with pytest.raises(ValueError, match="--modes"):
        grid.parse_names("eval", MODES, "--modes")


def test_encoder_variants_parse_options_as_yaml_scalars() -> None:
    specs, _ = grid.select_encoders(
        "disan,disan:attention_impl=chunked:chunk_size=16,bi_blosan:dropout=0.1",
        ["disan", "bi_blosan"],
    )
    assert names(specs) == [
        "disan",
        "disan:attention_impl=chunked:chunk_size=16",
        "bi_blosan:dropout=0.1",
    ]
    assert specs[1].kwargs() == {"attention_impl": "chunked", "chunk_size": 16}
    assert specs[2].kwargs() == {"dropout": 0.1} and specs[0].options_text == ""
    for bad in ("disan:chunked", "disan:=3", "disan:a="):
        with pytest.raises(ValueError, match="KEY=VALUE"):
            grid.select_encoders(bad, ["disan"])


def test_quick_preset_measures_short_and_predicts_the_papers_range() -> None:
    quick = grid.PRESETS["quick"]
    assert grid.parse_lengths(quick.lengths) == [8, 16, 32]
    predicted = grid.parse_lengths(quick.predict_lengths)
    assert {16, 384} <= set(predicted) and predicted[-1] == 384  # Bi-BloSAN Fig. 6, MTSA Fig. 1
    assert set(grid.parse_lengths(quick.lengths)) <= set(predicted)  # each measured point too
    assert 64 in predicted  # MTSA Table 1's training memory
    assert quick.repeats >= 3


def test_preload_env_sets_and_clears_jemalloc() -> None:
    env = {"LD_PRELOAD": "/x/libjemalloc.so.2:/y/libfoo.so", "A": "1"}
    assert allocator.preload_env(env, None) == {"LD_PRELOAD": "/y/libfoo.so", "A": "1"}
    assert allocator.preload_env({"A": "1"}, "/j.so")["LD_PRELOAD"] == "/j.so"
    assert "LD_PRELOAD" not in allocator.preload_env({"LD_PRELOAD": "/a/libjemalloc.so"}, None)
    assert allocator.resolve("glibc") == ("glibc", None)
    name, library = allocator.resolve("auto")
    assert (name == "jemalloc") == (library is not None)
    with pytest.raises(ValueError, match="--allocator"):
        allocator.resolve("tcmalloc")


def test_is_oom_recognises_allocation_failures_only() -> None:
    assert is_oom(MemoryError())
    assert is_oom(RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to"))
    assert is_oom(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"))
    assert not is_oom(RuntimeError("shape mismatch"))
    assert not is_oom(ValueError("out of memory"))  # only runtime/allocation errors count


def test_live_bytes_counts_shared_storage_once() -> None:
    x = torch.zeros(10, 4)
    assert live_bytes([x, x[1:], torch.zeros(3, dtype=torch.bool)]) == 160 + 3


def config(**overrides: object) -> SweepConfig:
    values = dict(
        encoders=(grid.EncoderSpec("a"),),
        lengths=(8,),
        modes=("infer",),
        batch_size=2,
        dim=4,
        device="cpu",
        dtype="fp32",
        repeats=3,
        max_memory_mb=None,
        allocator="glibc",
        preload=None,
    )
    return SweepConfig(**{**values, **overrides})


ENV = dict.fromkeys(ENV_COLUMNS, "x")


def test_make_row_has_every_column_in_order() -> None:
    row = make_row(
        Point("a", 8, "infer", 2, 4),
        config(),
        {**ENV, "allocator": "glibc"},
        {"status": "oom", "message": "no memory"},
        None,
    )
    assert tuple(row) == COLUMNS
    assert row["status"] == "oom" and row["time_ms_median"] == "" and row["seq_len"] == 8
    assert row["options"] == "" and row["peak_mem_mb_predicted"] == ""
    assert row["contended"] == "" and row["compile"] == "False"


def test_points_measure_the_lengths_and_predict_the_rest() -> None:
    both = config(lengths=(8, 16), predict_lengths=(8, 16, 32, 64))
    assert [p.seq_len for p in both.measured_points()] == [8, 16]
    assert [p.seq_len for p in both.points()] == [8, 16, 32, 64]
    only = config(lengths=(8,), predict_lengths=(32,), predict_only=True)
    assert only.measured_points() == [] and [p.seq_len for p in only.points()] == [32]
    assert [p.seq_len for p in config(predict_lengths=(32,), dtype="bf16").points()] == [8]


def test_resume_refuses_to_mix_allocators_or_shapes(tmp_path) -> None:
    recorded = {"device": "cpu", "dtype": "fp32", "batch_size": "2", "dim": "4"}
    recorded |= {"allocator": "jemalloc", "compile": "False"}
    rows = [{**dict.fromkeys(COLUMNS, ""), **recorded}]
    check_compatible(rows, config(allocator="jemalloc"), tmp_path)
    with pytest.raises(ValueError, match="compile=False"):
        check_compatible(rows, config(allocator="jemalloc", compile=True), tmp_path)
    with pytest.raises(ValueError, match="older sanbench"):
        check_compatible([recorded], config(allocator="jemalloc"), tmp_path)
    with pytest.raises(ValueError, match=r"allocator=jemalloc.*--allocator jemalloc"):
        check_compatible(rows, config(allocator="glibc"), tmp_path)
    with pytest.raises(ValueError, match="batch_size=2"):
        check_compatible(rows, config(allocator="jemalloc", batch_size=64), tmp_path)
    timed = [{**rows[0], "threads": "2"}]
    check_compatible(timed, config(allocator="jemalloc"), tmp_path)  # no --threads: resumes
    check_compatible(timed, config(allocator="jemalloc", threads=2), tmp_path)
    with pytest.raises(ValueError, match=r"timed with 2 threads .* --threads 1"):
        check_compatible(timed, config(allocator="jemalloc", threads=1), tmp_path)


def test_long_preset_profiles_the_long_sentence_encoders_up_to_2048() -> None:
    from encoders import list_encoders
    from harness.profiling.options import option_problems

    long = grid.PRESETS["long"]
    assert grid.parse_lengths(long.lengths) == [256, 512, 1024, 2048]
    assert grid.parse_lengths(long.predict_lengths) == [256, 512, 1024, 2048]
    specs, missing = grid.select_encoders(long.encoders, list_encoders())
    assert not missing
    assert [spec.label for spec in specs] == [
        "disan:attention_impl=chunked",
        "bi_blosan:attention_impl=chunked",
        "mtsa",
        "multi_head",
    ]
    assert option_problems(specs, long.dim) == []  # every variant builds
    assert long.batch_size == 8 and "batch 8" in long.about


def test_a_misspelt_mode_gets_the_nearest_one() -> None:
    """Outside check of #56, item 5: ``--modes infr`` got no 'did you mean'."""
    with pytest.raises(ValueError) as error:
        grid.parse_names("infr", MODES, "--modes")
    assert str(error.value) == (
        "--modes infr: expected a comma list of infer, train (did you mean infer?)"
    )
    with pytest.raises(ValueError) as error:
        grid.parse_names("infer,trian", MODES, "--modes")
    assert str(error.value) == (
        "--modes infer,trian: bad part trian: expected a comma list of infer, train (did you mean "
        "train?)"
    )
