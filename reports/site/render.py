"""Shared rendering: the Jinja environment (base template, number filters), figure files."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from reports.numbers import FILTERS
from reports.site.discover import Run
from reports.site.legends import with_legends

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
TEMPLATES.filters.update(FILTERS)
NOT_RECORDED = "not recorded in the run's manifest"


@dataclass
class Page:
    """What the index shows about a built page."""

    slug: str
    kind: str
    title: str
    source: str
    facts: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what the marks in ``facts`` mean


def render(template: str, path: Path, **context: Any) -> Path:
    """Render ``template`` into ``path`` (folders made as needed), each table holding an empty
    cell followed by what its mark means."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(with_legends(TEMPLATES.get_template(template).render(**context)))
    return path


def render_run_page(
    template: str, page_dir: Path, run: Run, title: str, environment: dict, **context: Any
) -> Path:
    """Render ``page_dir/index.html`` for ``run`` with the header every run page shows: title,
    source folder, environment and the command recorded in the run's manifest."""
    return render(
        template,
        page_dir / "index.html",
        title=title,
        root="../",
        source=str(run.folder),
        environment=environment,
        command=run.manifest.get("command") or NOT_RECORDED,
        **context,
    )


def save_figure(figure: plt.Figure, folder: Path, stem: str, title: str) -> dict[str, str]:
    """Write ``stem.png`` and ``stem.svg`` into ``folder``; returns the template's entry."""
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in ("png", "svg"):
        figure.savefig(folder / f"{stem}.{suffix}", dpi=150)
    plt.close(figure)
    return {"title": title, "png": f"{stem}.png", "svg": f"{stem}.svg"}


def copy_data(source: Path, names: list[str], destination: Path) -> list[str]:
    """Copy the named files (paths relative to ``source``) that exist; returns those copied."""
    copied = []
    for name in names:
        path = source / name
        if path.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            copied.append(name)
    return copied


def joined(values: Any) -> str:
    """Distinct non-empty values of a column or list, sorted and comma-separated."""
    distinct = sorted({str(v) for v in values if str(v) not in ("", "nan", "None")})
    return ", ".join(distinct)
