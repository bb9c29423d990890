"""One course map: the front page and every chapter page draw chapters and lessons from _toc.yml."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
import yaml

from prefixlab.paths import REPO_ROOT
from prefixlab.presenting.book.course_map import CourseMapError, course_map, page_title, pages
from prefixlab.presenting.evolution import load_map, map_path

TOC = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
DIRECTIVE = "```{course-map}"


def toc_pages() -> list[str]:
    out = []

    def walk(items):
        for item in items or []:
            out.append(item["file"])
            walk(item.get("sections"))

    for part in TOC["parts"]:
        walk(part["chapters"])
    return out


def chapter_pages() -> list[str]:
    return [c["file"] for part in TOC["parts"] for c in part["chapters"] if c.get("sections")]


def test_the_map_lists_every_toc_entry_in_order_with_its_title():
    parts = course_map()
    assert [p.caption for p in parts] == [p["caption"] for p in TOC["parts"]]
    assert pages(parts) == toc_pages()
    for part in parts:
        for entry in part.entries:
            assert entry.title == page_title(entry.page) and entry.title


def test_the_front_page_draws_the_map_and_lists_no_lesson_by_hand():
    text = (REPO_ROOT / "book" / "index.md").read_text(encoding="utf-8")
    assert DIRECTIVE in text
    links = re.findall(r"\]\(([^)]+\.(?:ipynb|md))\)", text)
    assert not links, f"book/index.md links pages by hand; the course map lists them: {links}"
    titles = [page_title(p) for p in toc_pages()]
    written = [t for t in titles if t in text]
    assert not written, f"book/index.md repeats titles the course map shows: {written}"


@pytest.mark.parametrize("page", chapter_pages())
def test_every_chapter_page_draws_the_map(page):
    cells = json.loads((REPO_ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))["cells"]
    assert any(DIRECTIVE in "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.parametrize("page", chapter_pages())
def test_a_chapters_evolution_map_lists_the_lessons_of_the_toc(page):
    """The chapter page's lesson table (from the evolution map) agrees with the table of contents."""
    chapter = page.split("/")[1]
    data = load_map(map_path(chapter))
    sections = next(c["sections"] for part in TOC["parts"] for c in part["chapters"] if c["file"] == page)
    assert data.chapter["page"] == page
    assert [l.page for l in data.lessons if l.page] == [s["file"] for s in sections]
    for lesson in data.lessons:
        if lesson.page:
            assert page_title(lesson.page) == f"{lesson.label} {lesson.title}"


def test_a_missing_page_or_title_says_which(tmp_path):
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: index\nparts:\n  - caption: 甲\n"
                                       "    chapters:\n      - file: c1/index\n", encoding="utf-8")
    with pytest.raises(CourseMapError, match="c1/index"):
        course_map(tmp_path / "_toc.yml")
    (tmp_path / "c1").mkdir()
    (tmp_path / "c1" / "index.md").write_text("no title\n", encoding="utf-8")
    with pytest.raises(CourseMapError, match="no '# ' title"):
        course_map(tmp_path / "_toc.yml")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_the_built_map_links_every_page_and_marks_the_chapter(tmp_path):
    """A tiny Sphinx project: the directive's HTML links every toc entry, from the front page and a chapter."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / "src"
    write(src / "conf.py", 'extensions = ["myst_parser", "prefixlab.presenting.book.sphinx_course_map"]\n'
                           'exclude_patterns = ["_build"]\nroot_doc = "book/index"\n')
    write(src / "_toc.yml", """\
        format: jb-book
        root: book/index
        parts:
          - caption: 第一部分
            chapters:
              - file: book/c1/index
                sections:
                  - file: book/c1/c1-1-first
          - caption: 实验室
            chapters:
              - file: labs/c1/lab
        """)
    write(src / "book/index.md", "# 首页\n\n```{course-map}\n```\n")
    write(src / "book/c1/index.md", "# C1 第一章\n\n```{course-map}\n```\n")
    write(src / "book/c1/c1-1-first.md", "# C1·1 第一课\n")
    write(src / "labs/c1/lab.md", "# 实验室:一\n")
    # A fresh docutils registry, so a later Sphinx build in the same test process does not warn
    # that Sphinx's node classes are registered twice.
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
                     status=None, warning=None, freshenv=True)
        app.build()
    front = (tmp_path / "out" / "book" / "index.html").read_text(encoding="utf-8")
    for href, title in [("c1/index.html", "C1 第一章"), ("c1/c1-1-first.html", "C1·1 第一课"),
                        ("../labs/c1/lab.html", "实验室:一")]:
        assert re.search(rf'href="{re.escape(href)}"[^>]*>(<[^>]+>)*{re.escape(title)}', front), href
    assert "第一部分" in front and "实验室" in front and "本章" not in front
    chapter = (tmp_path / "out" / "book" / "c1" / "index.html").read_text(encoding="utf-8")
    assert "c1-1-first.html" in chapter and "(本章)" in chapter
