"""Every table and list of values on a page that holds an empty cell says what its mark means:
one line under it, the same on every page (``sanbench data stats`` prints it too)."""

from __future__ import annotations

import re

from reports.numbers import MISSING, MISSING_LEGEND

# a table (with the scrolling box around it) or a list of values (dl), as the templates write them
BLOCK = re.compile(r"<table\b.*?</table>(?:\s*</div>)?|<dl\b.*?</dl>", re.S)
EMPTY_CELL = re.compile(rf"<(td|dd)\b[^>]*>\s*{MISSING}\s*</\1>")
LEGEND = f'<p class="note legend">{MISSING_LEGEND}.</p>'


def with_legends(html: str) -> str:
    """``html`` with :data:`LEGEND` after each table or list of values holding an empty cell."""
    return BLOCK.sub(lambda block: block[0] + LEGEND * bool(EMPTY_CELL.search(block[0])), html)
