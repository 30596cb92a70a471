"""Published numbers, transcribed from ``../shared/papers/*.txt`` with table and row.

Only the papers' own RNN/CNN/SAN baselines and proposed models are transcribed (the
leaderboard rows are other systems); rows whose encoder is not registered are dropped when
tables are built. Metric names are the results-file columns: accuracies in percent,
``params`` in parameters (|θ|, word embeddings excluded), times in seconds, memory in MB.

Bi-BloSAN Table 6 prints its last two columns as "SST-1 SST-2" but the values in them are
binary-SST (~87%) then fine-grained-SST (~50%) accuracies: DCNN's row shows 86.8 then 48.5,
which Kalchbrenner et al. report for SST-2 and SST-1, and MTSA Table 5 (same authors) lists
49.9/48.2/51.0/50.6 for Bi-LSTM/Multi-head/DiSA/Bi-BloSA under SST-5. They are transcribed
by task (sst1 ~50, sst2 ~87).
"""

from __future__ import annotations

from dataclasses import dataclass

from reports.contracts.profile_run import variant_label

BI_BLOSAN = "Bi-BloSAN (Shen et al., ICLR 2018)"
MTSA = "MTSA (Shen et al., NAACL 2019)"
DISAN = "DiSAN (Shen et al., AAAI 2018)"
# How the papers' figures ran an encoder, where our default differs: DiSAN and Bi-BloSAN built
# the whole [B, L, L, d] attention (their memory curves and claims are about that computation);
# our encoders default to the exact chunked attention, faster and memory-bounded.
FIGURE_OPTIONS = {"disan": "attention_impl=naive", "bi_blosan": "attention_impl=naive"}


def figure_label(encoder: str) -> str:
    """The profile label under which the papers' figures measure ``encoder``
    (``disan:attention_impl=naive``; ``mtsa`` as it is)."""
    return variant_label(encoder, FIGURE_OPTIONS.get(encoder, ""))


# The encoders of the papers' efficiency figures: Bi-BloSAN Fig. 6 (Sec. 4.5), MTSA Fig. 1 adds
# MTSA; the first encoders of every report's palette (reports/palette.py).
FIGURE_NAMES = (
    "bilstm",
    "bigru",
    "bisru",
    "multi_cnn",
    "hrchy_cnn",
    "multi_head",
    "disan",
    "bi_blosan",
    "mtsa",
)
# The same as profile labels, as the figures ran them: the profiler's default encoders.
FIGURE_ENCODERS = tuple(figure_label(encoder) for encoder in FIGURE_NAMES)


@dataclass(frozen=True)
class PaperValue:
    """One published number: where it is printed, which encoder, task and metric it is."""

    paper: str
    table: str
    row: str
    encoder: str
    task: str
    metric: str
    value: float
    std: float | None = None


def _rows(
    paper: str,
    table: str,
    task: str,
    metrics: tuple[str, ...],
    rows: dict[tuple[str, str], tuple[float | tuple[float, float] | None, ...]],
) -> list[PaperValue]:
    """Expand ``{(printed row, encoder): values in column order}``; a value may be (mean, std)."""
    values = []
    for (row, encoder), cells in rows.items():
        for metric, cell in zip(metrics, cells, strict=True):
            if cell is None:
                continue
            mean, std = cell if isinstance(cell, tuple) else (cell, None)
            values.append(PaperValue(paper, table, row, encoder, task, metric, mean, std))
    return values


def _per_task(
    paper: str,
    table: str,
    tasks: tuple[str, ...],
    rows: dict[tuple[str, str], tuple[tuple[float, float], ...]],
) -> list[PaperValue]:
    """Tables whose columns are tasks and whose cells are accuracies: mean (std)."""
    values = []
    for (row, encoder), cells in rows.items():
        for task, (mean, std) in zip(tasks, cells, strict=True):
            values.append(PaperValue(paper, table, row, encoder, task, "test_acc", mean, std))
    return values


M = 1e6
# Bi-BloSAN Table 1: |θ|, Train Accu, Test Accu on SNLI.
_BB_T1 = _rows(
    BI_BLOSAN,
    "Table 1",
    "snli",
    ("params", "train_acc", "test_acc"),
    {
        ("Bi-LSTM (Graves et al., 2013)", "bilstm"): (2.9 * M, 90.4, 85.0),
        ("Bi-GRU (Chung et al., 2014)", "bigru"): (2.5 * M, 91.9, 84.9),
        ("Bi-SRU (Lei & Zhang, 2017)", "bisru"): (2.0 * M, 88.4, 84.8),
        ("Multi-CNN (Kim, 2014)", "multi_cnn"): (1.4 * M, 89.3, 83.2),
        ("Hrchy-CNN (Gehring et al., 2017)", "hrchy_cnn"): (3.4 * M, 91.3, 83.9),
        ("Multi-head (Vaswani et al., 2017)", "multi_head"): (2.0 * M, 89.6, 84.2),
        ("DiSAN (Shen et al., 2017)", "disan"): (2.3 * M, 91.1, 85.6),
        ("480D Bi-BloSAN", "bi_blosan"): (2.8 * M, 91.7, 85.7),
    },
)
# Bi-BloSAN Table 2: Time(s)/epoch, Memory(MB), Inference Time(s) (dev, batch 100), Test Accuracy.
_BB_T2 = _rows(
    BI_BLOSAN,
    "Table 2",
    "snli",
    ("train_time_per_epoch_s", "peak_train_mem_mb", "dev_infer_time_s", "test_acc"),
    {
        ("Bi-LSTM (Graves et al., 2013)", "bilstm"): (2080, 1245, 9.2, 85.0),
        ("Bi-GRU (Chung et al., 2014)", "bigru"): (1728, 1259, 9.3, 84.9),
        ("Bi-SRU (Lei & Zhang, 2017)", "bisru"): (1630, 731, 8.2, 84.8),
        ("Multi-CNN (Kim, 2014)", "multi_cnn"): (284, 529, 2.4, 83.2),
        ("Hrchy-CNN (Gehring et al., 2017)", "hrchy_cnn"): (343, 2341, 2.9, 83.9),
        ("Multi-head (Vaswani et al., 2017)", "multi_head"): (345, 1245, 3.0, 84.2),
        ("DiSAN (Shen et al., 2017)", "disan"): (587, 2267, 7.0, 85.6),
        ("480D Bi-BloSAN", "bi_blosan"): (508, 1243, 3.4, 85.7),
    },
)
# Bi-BloSAN Table 5: SICK Pearson's r, Spearman's ρ, MSE; mean (std) of five runs.
_BB_T5 = _rows(
    BI_BLOSAN,
    "Table 5",
    "sick",
    ("test_pearson", "test_spearman", "test_mse"),
    {
        ("Bi-LSTM (Graves et al., 2013)", "bilstm"): (
            (0.8473, 0.0013),
            (0.7913, 0.0019),
            (0.3276, 0.0087),
        ),
        ("Multi-CNN (Kim, 2014)", "multi_cnn"): (
            (0.8374, 0.0021),
            (0.7793, 0.0028),
            (0.3395, 0.0086),
        ),
        ("Hrchy-CNN (Gehring et al., 2017)", "hrchy_cnn"): (
            (0.8436, 0.0014),
            (0.7874, 0.0022),
            (0.3162, 0.0058),
        ),
        ("Multi-head (Vaswani et al., 2017)", "multi_head"): (
            (0.8521, 0.0013),
            (0.7942, 0.0050),
            (0.3258, 0.0149),
        ),
        ("DiSAN (Shen et al., 2017)", "disan"): (
            (0.8695, 0.0012),
            (0.8139, 0.0012),
            (0.2879, 0.0036),
        ),
        ("Bi-BloSAN", "bi_blosan"): ((0.8616, 0.0012), (0.8038, 0.0012), (0.3008, 0.0091)),
    },
)
# Bi-BloSAN Table 6's columns in its order, each as a table of ours heads it, with its task
# (the values under the paper's "SST-1" and "SST-2" are transcribed by task, see above)
TABLE_6_COLUMNS = (
    ("CR", "cr"),
    ("MPQA", "mpqa"),
    ("SUBJ", "subj"),
    ("TREC", "trec"),
    ("SST-1", "sst1"),
    ("SST-2", "sst2"),
)
TABLE_6_TASKS = tuple(task for _, task in TABLE_6_COLUMNS)
# Bi-BloSAN Table 6: accuracies, mean (std); CR/MPQA/SUBJ 10-fold CV, TREC mean of five runs
# on its 500-question held-out set (the paper calls it dev), SST-1/SST-2 mean test of five runs.
_BB_T6 = _per_task(
    BI_BLOSAN,
    "Table 6",
    TABLE_6_TASKS,
    {
        ("Bi-LSTM (Graves et al., 2013)", "bilstm"): (
            (84.6, 1.6),
            (90.2, 0.9),
            (94.7, 0.7),
            (94.4, 0.3),
            (49.9, 0.8),
            (87.7, 0.6),
        ),
        ("Multi-head (Vaswani et al., 2017)", "multi_head"): (
            (82.6, 1.9),
            (89.8, 1.2),
            (94.0, 0.8),
            (93.4, 0.4),
            (48.2, 0.6),
            (83.9, 0.4),
        ),
        ("DiSAN (Shen et al., 2017)", "disan"): (
            (84.8, 2.0),
            (90.1, 0.4),
            (94.2, 0.6),
            (94.2, 0.1),
            (51.0, 0.7),
            (87.8, 0.3),
        ),
        ("Bi-BloSAN", "bi_blosan"): (
            (84.8, 0.9),
            (90.4, 0.8),
            (94.5, 0.5),
            (94.8, 0.2),
            (50.6, 0.5),
            (87.4, 0.2),
        ),
    },
)
# MTSA Table 1 (SNLI): |θ|, Time/Epoch (batch 128), Inf. Time (dev, batch 128), Memory
# (synthetic length-64 batch-64 training step), Train Acc., Test Acc.
_MTSA_T1 = _rows(
    MTSA,
    "Table 1",
    "snli",
    (
        "params",
        "train_time_per_epoch_s",
        "dev_infer_time_s",
        "peak_train_mem_mb",
        "train_acc",
        "test_acc",
    ),
    {
        ("Bi-LSTM (Graves et al., 2013)", "bilstm"): (2.9 * M, 854, 9.1, 942, 90.4, 85.0),
        ("Bi-GRU (Chung et al., 2014)", "bigru"): (2.5 * M, 850, 9.4, 810, 91.9, 84.9),
        ("Multi-CNN (Kim, 2014)", "multi_cnn"): (1.4 * M, 137, 1.4, 208, 89.3, 83.2),
        ("Hrchy-CNN (Gehring et al., 2017)", "hrchy_cnn"): (3.4 * M, 195, 1.8, 309, 91.3, 83.9),
        ("Multi-head (Vaswani et al., 2017)", "multi_head"): (2.0 * M, 179, 1.5, 466, 89.6, 84.2),
        ("DiSA (Shen et al., 2018a)", "disan"): (2.3 * M, 390, 5.2, 6682, 91.1, 85.6),
        ("Bi-BloSA (Shen et al., 2018c)", "bi_blosan"): (4.1 * M, 303, 3.2, 1600, 91.6, 85.8),
        ("MTSA", "mtsa"): (2.9 * M, 180, 1.6, 558, 91.8, 86.3),
    },
)
# MTSA Table 5's columns in its order, each with its task (its SST-5 is our SST-1)
MTSA_TABLE_5_COLUMNS = (
    ("CR", "cr"),
    ("MPQA", "mpqa"),
    ("SUBJ", "subj"),
    ("TREC", "trec"),
    ("SST-5", "sst1"),
)
# MTSA Table 5: accuracies, mean (std); SST-5 is SST-1.
_MTSA_T5 = _per_task(
    MTSA,
    "Table 5",
    tuple(task for _, task in MTSA_TABLE_5_COLUMNS),
    {
        ("Bi-LSTM", "bilstm"): ((84.6, 1.6), (90.2, 0.9), (94.7, 0.7), (94.4, 0.3), (49.9, 0.8)),
        ("Multi-head", "multi_head"): (
            (82.6, 1.9),
            (89.8, 1.2),
            (94.0, 0.8),
            (93.4, 0.4),
            (48.2, 0.6),
        ),
        ("DiSA", "disan"): ((84.8, 2.0), (90.1, 0.4), (94.2, 0.6), (94.2, 0.1), (51.0, 0.7)),
        ("Bi-BloSA", "bi_blosan"): (
            (84.8, 0.9),
            (90.4, 0.8),
            (94.5, 0.5),
            (94.8, 0.2),
            (50.6, 0.5),
        ),
        ("MTSA", "mtsa"): ((84.9, 2.4), (90.5, 0.6), (94.5, 0.6), (95.3, 0.3), (51.3, 0.7)),
    },
)
# DiSAN paper, Experiments on SNLI: "DiSAN only has 2.35M parameters".
_DISAN_TEXT = [
    PaperValue(DISAN, "SNLI text", "DiSAN", "disan", "snli", "params", 2.35 * M),
]

PAPER_VALUES: tuple[PaperValue, ...] = (
    *_BB_T1,
    *_BB_T2,
    *_BB_T5,
    *_BB_T6,
    *_MTSA_T1,
    *_MTSA_T5,
    *_DISAN_TEXT,
)


def lookup(paper: str, table: str, encoder: str, task: str, metric: str) -> PaperValue | None:
    """The published number for one cell, or None when that paper's table has none."""
    for value in PAPER_VALUES:
        if (value.paper, value.table, value.encoder, value.task, value.metric) == (
            paper,
            table,
            encoder,
            task,
            metric,
        ):
            return value
    return None
