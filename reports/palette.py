"""One colour and marker per encoder name, the same on every figure, page and report.

The registered encoders have fixed slots (the papers' figure encoders first, in tab10's colours,
then the ablations in Dark2's, then the papers' figure variants, ``disan:attention_impl=naive``
and ``bi_blosan:attention_impl=naive``, in Set1's); any other label (another variant such as
``disan:attention_impl=chunked:chunk_size=8``, a plugin's encoder) gets a colour of tab20b and a
marker chosen by a stable hash of the label, so it too keeps its look whatever else a figure
shows.
"""

from __future__ import annotations

import zlib

import matplotlib

from reports.paper_numbers import FIGURE_ENCODERS, FIGURE_NAMES

FIXED = (
    *FIGURE_NAMES,
    "mpsan",
    "bilstm_s2t",
    "word_s2t",
    "disan_nodir",
    "bi_blosan_no_local",
    "bi_blosan_no_global",
    "mtsa_no_masks",
    "mtsa_no_t2t",
    "mtsa_no_s2t",
    *(label for label in FIGURE_ENCODERS if label not in FIGURE_NAMES),
)
FIXED_COLOURS = (
    *matplotlib.colormaps["tab10"].colors,
    *matplotlib.colormaps["Dark2"].colors,
    *matplotlib.colormaps["Set1"].colors,
)
OTHER_COLOURS = matplotlib.colormaps["tab20b"].colors
MARKERS = ("o", "s", "^", "v", "D", "P", "*", "X", "h", "<", ">", "p", "d", "8")


def style(label: str) -> dict[str, object]:
    """``{"color": ..., "marker": ...}`` of one encoder label (matplotlib keywords)."""
    if label in FIXED:
        slot = FIXED.index(label)
        return {"color": FIXED_COLOURS[slot], "marker": MARKERS[slot % len(MARKERS)]}
    code = zlib.crc32(label.encode())
    return {
        "color": OTHER_COLOURS[code % len(OTHER_COLOURS)],
        "marker": MARKERS[(code // len(OTHER_COLOURS)) % len(MARKERS)],
    }


def styles(labels: list[str]) -> dict[str, dict[str, object]]:
    """Styles of ``labels`` in drawing (and legend) order: the fixed encoders first."""

    def order(label: str) -> tuple[int, str]:
        return (FIXED.index(label) if label in FIXED else len(FIXED), label)

    return {label: style(label) for label in sorted(set(labels), key=order)}
