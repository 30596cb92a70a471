"""Every table or list of values on a page that holds an empty cell says what ``–`` means, one
rule for every page (issue 56 outside check C item 6: the fit page's resolved configuration,
the suite page's Table 6 and MTSA Table 5, the profile page's 'first OOM at L' and every
environment's 'cuda' showed '–' with no word on it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reports.numbers import MISSING_LEGEND
from reports.site import build_site
from reports.site.legends import with_legends

FIXTURES = Path(__file__).parents[1] / "fixtures"
EMPTY = re.compile(r"<(td|dd)\b[^>]*>\s*–\s*</\1>")
BLOCK_END = re.compile(r"</table>\s*(</div>)?|</dl>")


def unexplained(html: str) -> list[str]:
    """The empty cells whose table (or list) is not followed by the legend."""
    found = []
    for cell in EMPTY.finditer(html):
        end = BLOCK_END.search(html, cell.end())
        assert end is not None, html[cell.start() :]
        if not html[end.end() :].lstrip().startswith(f'<p class="note legend">{MISSING_LEGEND}'):
            found.append(html[max(0, cell.start() - 80) : cell.end()])
    return found


def test_a_table_or_list_with_an_empty_cell_is_followed_by_the_legend() -> None:
    html = (
        '<div class="scroll"><table><tr><td>1–2</td><td class="bad">–</td></tr></table></div>'
        "<table><tr><td>64–512</td><td>3</td></tr></table>"
        '<dl class="env"><dt>cuda</dt><dd>–</dd></dl><dl><dt>torch</dt><dd>2.13</dd></dl>'
    )
    shown = with_legends(html)
    assert shown.count(MISSING_LEGEND) == 2  # a range (1–2, 64–512) is no empty cell
    assert unexplained(shown) == [] and len(unexplained(html)) == 2


@pytest.mark.slow  # builds pages
@pytest.mark.usefixtures("figures_not_drawn")
def test_every_page_says_what_an_empty_cell_means(tmp_path: Path) -> None:
    fit = FIXTURES / "suite-tiny" / "runs" / "cr" / "multi_cnn" / "fold0"
    runs = [FIXTURES / name for name in ("suite-tiny", "profile-cpu-fp32", "study-dropout-trec")]
    build_site([*runs, fit, FIXTURES / "reproduce-tiny"], tmp_path / "site")
    pages = [*sorted((tmp_path / "site").glob("*/index.html")), tmp_path / "site" / "index.html"]
    assert len(pages) == 6
    empty = {page.parent.name: len(EMPTY.findall(page.read_text())) for page in pages}
    assert empty["suite-tiny"] and empty["profile-cpu-fp32"] and empty["fit-fold0"], empty
    assert {page.parent.name: unexplained(page.read_text()) for page in pages} == {
        page.parent.name: [] for page in pages
    }
