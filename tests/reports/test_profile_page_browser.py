"""The profile page in a real headless Chromium: the claims table's verdicts stay in view at
every window width (the table scrolls sideways inside its box, so a last column would start
off-screen on a narrow window)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from reports.site import build_site

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.slow  # starts a browser

PROFILE = Path(__file__).parent / "fixtures" / "profile-cpu-fp32"
VERDICT_BOXES = """() => {
  const table = document.querySelector('#claims ~ div.scroll table');
  const box = table.parentElement.getBoundingClientRect();
  const cells = [...table.rows].map(row => row.cells[0]);
  return {
    header: cells[0].textContent.trim(),
    inside: cells.every(cell => {
      const edge = cell.getBoundingClientRect();
      return edge.left >= box.left - 1 && edge.right <= box.right + 1
        && edge.right <= window.innerWidth;
    }),
  };
}"""


@pytest.mark.parametrize("width", [320, 600, 1024, 1600])
def test_claims_verdicts_are_never_clipped(
    browser: Browser,
    tmp_path: Path,
    width: int,
) -> None:
    build_site([PROFILE], tmp_path)
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto((tmp_path / PROFILE.name / "index.html").as_uri())
    found = page.evaluate(VERDICT_BOXES)
    page.close()
    assert found == {"header": "verdict", "inside": True}
