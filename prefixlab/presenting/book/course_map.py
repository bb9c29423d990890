"""The course map: every part, chapter and lesson of the book, read from the table of contents.

    parts = course_map()           # [Part(caption, [Entry(page, title, children), ...]), ...]
    pages(parts)                   # every page the map lists, in reading order

``_toc.yml`` is the one place where chapters and lessons are listed; a page's title is its first
``# `` heading, as Sphinx takes it. The front page and each chapter page draw this map through the
``course-map`` directive (``sphinx_course_map``), so no page keeps a list of lessons by hand.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from prefixlab.paths import REPO_ROOT, TOC

HEADING = re.compile(r"^# (.+?)\s*$", re.M)


class CourseMapError(ValueError):
    """The table of contents names a page that is missing or has no title; the message says which."""


@dataclass(frozen=True)
class Entry:
    page: str                  # book-root relative, no extension (as in _toc.yml)
    title: str
    children: tuple["Entry", ...] = ()


@dataclass(frozen=True)
class Part:
    caption: str
    entries: tuple[Entry, ...] = field(default_factory=tuple)


def page_file(page: str, root: Path = REPO_ROOT) -> Path:
    for ext in (".md", ".ipynb"):
        path = root / f"{page}{ext}"
        if path.is_file():
            return path
    raise CourseMapError(f"_toc.yml names {page}, but neither {page}.md nor {page}.ipynb exists")


def page_title(page: str, root: Path = REPO_ROOT) -> str:
    """The page's first ``# `` heading (a notebook's first markdown cell that has one)."""
    path = page_file(page, root)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    else:
        texts = [re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)]
    for text in texts:
        found = HEADING.search(text)
        if found:
            return found.group(1)
    raise CourseMapError(f"{path.relative_to(root)} has no '# ' title")


def _entries(items, root: Path) -> tuple[Entry, ...]:
    return tuple(Entry(item["file"], page_title(item["file"], root), _entries(item.get("sections"), root))
                 for item in items or [] if "file" in item)


def course_map(toc: Path = TOC, root: Path | None = None) -> list[Part]:
    """The parts of the book in order, each with its chapters and their lessons (the root page aside).

    Pages are found under ``root``, the book root (default: the folder of ``toc``).
    """
    root = Path(root) if root is not None else Path(toc).parent
    data = yaml.safe_load(Path(toc).read_text(encoding="utf-8"))
    parts = [Part(p.get("caption", ""), _entries(p.get("chapters"), root)) for p in data.get("parts", [])]
    if data.get("chapters"):
        parts.append(Part("", _entries(data["chapters"], root)))
    return parts


def toc_files(toc: Path = TOC) -> list[str]:
    """Every page ``toc`` names (its root first), book-root relative, without extension: no page is
    opened, so this is cheap enough for a cell that runs on every lesson."""
    out: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    out.append(node[key].removesuffix(".ipynb").removesuffix(".md"))
            for value in node.values():
                if isinstance(value, (list, dict)):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(Path(toc).read_text(encoding="utf-8")))
    return out


def pages(parts: list[Part]) -> list[str]:
    """Every page the map lists, in reading order."""
    out: list[str] = []

    def walk(entries):
        for e in entries:
            out.append(e.page)
            walk(e.children)

    for part in parts:
        walk(part.entries)
    return out


def chapter_of(parts: list[Part], page: str) -> Entry | None:
    """The chapter (a top-level entry) that is ``page`` or holds it as a lesson."""
    for part in parts:
        for entry in part.entries:
            if page == entry.page or page in pages([Part("", entry.children)]):
                return entry
    return None
