"""One colour per encoder family and one marker per label, alike on every figure, page, report.

A label is an encoder with options (``disan:attention_impl=naive``): its colour is its
encoder's, so DiSAN looks alike on the profile page (the papers' naive attention) and on a fit
page (the default chunked one), and its marker is its own, so the two are told apart where they
are drawn together. An encoder named after a figure encoder (``disan_nodir``, ``mtsa_no_s2t``,
``bilstm_s2t``: the figure encoder's name and ``_``) is a variant of it in the same way: its
family's colour, a marker of its own. The colours are readable on white (no grey, nothing
pale) and any two of them are at least ``MIN_DELTA_E`` apart in CIELAB (CIE76 ΔE): they are
taken in order from tab10, Dark2, Set1, tab20b, tab20, Paired, Set2 and Accent, skipping any
too close to one taken before. The papers' figure encoders (``reports.paper_numbers``) have
fixed colours (tab10's, with olive where tab10 has grey); any other family (``mpsan``, a
plugin's) gets one of the remaining colours by a stable hash of its name, moved to the next one
in a figure where that colour is another family's, and likewise a label's marker. No list of
encoders is kept here: a new encoder, built-in or plugin, needs no edit of this module.
"""

from __future__ import annotations

import zlib
from functools import cache

import matplotlib
import numpy as np

from reports.paper_numbers import FIGURE_ENCODERS, FIGURE_NAMES

# Labels with a marker of their own: the figure encoders, then the papers' figure variants.
FIXED = (*FIGURE_NAMES, *(label for label in FIGURE_ENCODERS if label not in FIGURE_NAMES))
MARKERS = ("o", "s", "^", "v", "D", "P", "*", "X", "h", "<", ">", "p", "d", "8")
MIN_DELTA_E = 20.0
CANDIDATE_MAPS = ("tab10", "Dark2", "Set1", "tab20b", "tab20", "Paired", "Set2", "Accent")
LEAST_CHROMA, MOST_LIGHTNESS = 15.0, 85.0  # no grey, nothing pale on a white page


def lab(rgb: tuple[float, ...]) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour with components in [0, 1]."""
    linear = np.array(rgb[:3], dtype=float)
    linear = np.where(linear <= 0.04045, linear / 12.92, ((linear + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    x, y, z = (xyz @ linear) / np.array([0.95047, 1.0, 1.08883])
    delta = 6 / 29

    def f(t: float) -> float:
        return float(np.cbrt(t)) if t > delta**3 else t / (3 * delta**2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return np.array([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)])


def delta_e(first: tuple[float, ...], second: tuple[float, ...]) -> float:
    """CIE76 colour difference."""
    return float(np.linalg.norm(lab(first) - lab(second)))


@cache
def colours() -> tuple[tuple[float, float, float], ...]:
    """The palette: readable colours, each at least ``MIN_DELTA_E`` from every one before it."""
    chosen: list[tuple[float, float, float]] = []
    for name in CANDIDATE_MAPS:
        for colour in matplotlib.colormaps[name].colors:
            rgb = (float(colour[0]), float(colour[1]), float(colour[2]))
            lightness, a, b = lab(rgb)
            readable = np.hypot(a, b) >= LEAST_CHROMA and lightness <= MOST_LIGHTNESS
            if readable and all(delta_e(rgb, other) >= MIN_DELTA_E for other in chosen):
                chosen.append(rgb)
    return tuple(chosen)


def encoder_of(label: str) -> str:
    """The encoder of a label (``disan`` of ``disan:attention_impl=naive``)."""
    return label.split(":", 1)[0]


def _hash(text: str) -> int:
    return zlib.crc32(text.encode())


def family(encoder: str) -> str:
    """The figure encoder ``encoder`` is a variant of by its name (``disan_nodir`` -> ``disan``:
    the longest figure encoder name followed by ``_``), or ``encoder`` itself."""
    prefixes = [name for name in FIGURE_NAMES if encoder.startswith(f"{name}_")]
    return max(prefixes, key=len) if prefixes else encoder


def _colour_slot(family: str) -> int:
    if family in FIGURE_NAMES:
        return FIGURE_NAMES.index(family)
    spare = len(colours()) - len(FIGURE_NAMES)
    return len(FIGURE_NAMES) + _hash(family) % spare


def _marker_slot(label: str) -> int:
    return FIXED.index(label) if label in FIXED else _hash(label)


def style(label: str) -> dict[str, object]:
    """``{"color": ..., "marker": ...}`` of one label drawn alone (matplotlib keywords)."""
    return {
        "color": colours()[_colour_slot(family(encoder_of(label)))],
        "marker": MARKERS[_marker_slot(label) % len(MARKERS)],
    }


def styles(labels: list[str]) -> dict[str, dict[str, object]]:
    """Styles of ``labels`` in drawing (and legend) order, the fixed ones first: each as
    :func:`style` gives it, except that a family outside ``FIGURE_NAMES`` whose colour is within
    ``MIN_DELTA_E`` of another family's in this figure takes the next spare colour, and a
    label whose marker another label of its family has takes the next marker."""

    def order(label: str) -> tuple[int, str]:
        return (FIXED.index(label) if label in FIXED else len(FIXED), label)

    ordered = sorted(set(labels), key=order)
    palette, spare = colours(), len(colours()) - len(FIGURE_NAMES)
    family_colour: dict[str, tuple[float, float, float]] = {}
    for name in dict.fromkeys(family(encoder_of(label)) for label in ordered):
        slot = _colour_slot(name)
        if name not in FIGURE_NAMES:
            for step in range(spare):
                candidate = palette[len(FIGURE_NAMES) + (slot - len(FIGURE_NAMES) + step) % spare]
                if all(delta_e(candidate, c) >= MIN_DELTA_E for c in family_colour.values()):
                    slot = palette.index(candidate)
                    break
        family_colour[name] = palette[slot]
    result: dict[str, dict[str, object]] = {}
    taken: dict[str, set[str]] = {}
    for label in ordered:
        name = family(encoder_of(label))
        slot = _marker_slot(label)
        used = taken.setdefault(name, set())
        while MARKERS[slot % len(MARKERS)] in used and len(used) < len(MARKERS):
            slot += 1
        used.add(MARKERS[slot % len(MARKERS)])
        result[label] = {"color": family_colour[name], "marker": MARKERS[slot % len(MARKERS)]}
    return result


SHADES = (1.0, 0.6, 0.35)  # a family's colour, then darker ones for its further labels


def shaded(looks: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    """``looks`` (:func:`styles`) with each label whose family colour a label before it has
    drawn in a darker shade of it (``SHADES``): for a figure whose line styles say something
    else (the compare page's runs), where a small marker alone does not tell a variant
    (``disan:attention_impl=naive``) from its encoder; the legend shows each shade."""
    seen: dict[object, int] = {}
    result = {}
    for label, look in looks.items():
        colour = look["color"]
        count = seen.get(colour, 0)
        seen[colour] = count + 1
        factor = SHADES[min(count, len(SHADES) - 1)]
        result[label] = {**look, "color": tuple(part * factor for part in colour[:3])}
    return result
