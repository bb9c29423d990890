"""Checks over the built site (_build/html): offline-safe, plotly once per figure page.

Skipped until the book is built (bash scripts/build_book.sh). The fixture build
(_build/fixture/_build/html, from --fixture) is checked too when present.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
BUILDS = [REPO_ROOT / "_build/html", REPO_ROOT / "_build/fixture/_build/html"]
# Attributes that make the browser fetch something by itself.
FETCHING = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
            ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"),
            ("object", "data")}
EXTERNAL = re.compile(r"^(https?:)?//", re.I)
PLOTLY_SRC = re.compile(r"prefixlab-vendor/plotly/plotly-cartesian\.min\.js")


class Fetches(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if (tag, name) in FETCHING and value:
                # <link rel="canonical"/"alternate"> etc. are not fetched; stylesheets and
                # preloads are.
                rel = dict(attrs).get("rel", "") or ""
                if tag == "link" and not re.search(r"stylesheet|preload|icon|modulepreload", rel):
                    continue
                self.urls.append((tag, value))


def built() -> list[Path]:
    return [b for b in BUILDS if (b / "search.html").is_file()]


def pages(build: Path) -> list[Path]:
    return [p for p in sorted(build.rglob("*.html"))
            if not p.relative_to(build).as_posix().startswith(("_static/", "_sources/"))]


pytestmark = pytest.mark.skipif(not built(), reason="book not built: bash scripts/build_book.sh")


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_no_page_fetches_from_another_host(build):
    offenders = []
    for page in pages(build):
        parser = Fetches()
        parser.feed(page.read_text(encoding="utf-8"))
        offenders += [f"{page.relative_to(build)}: <{t}> {u}" for t, u in parser.urls if EXTERNAL.match(u)]
    assert not offenders, "external resources in built HTML:\n" + "\n".join(offenders)


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_plotly_js_once_on_figure_pages_and_nowhere_else(build):
    for page in pages(build):
        html = page.read_text(encoding="utf-8")
        loads = len(PLOTLY_SRC.findall(html))
        has_figure = 'class="plotly-graph-div"' in html
        assert loads == (1 if has_figure else 0), f"{page.relative_to(build)}: plotly.js loaded {loads}x"
        if has_figure:
            assert (build / "_static" / PLOTLY_SRC.search(html).group(0)).is_file()


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_search_index_holds_chinese_terms(build):
    text = (build / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1: text.rindex(")")])
    terms = index["terms"]
    assert "缓存" in terms, "Chinese not indexed: is jieba installed?"
    assert "前缀缓存" in terms, "course terms dictionary (zh_search_terms.txt) not loaded"


def test_launch_and_repository_buttons_present():
    build = built()[0]
    html = (build / "book/index.html").read_text(encoding="utf-8")
    assert "https://github.com/coding-agent-from-zero/course" in html
    assert "thebe" not in html.lower()


def test_the_course_map_links_every_page_of_the_toc():
    """The front page's and every chapter page's course map, as built, link every page of _toc.yml."""
    import posixpath

    from prefixlab.presenting.book.course_map import course_map, pages as toc_pages

    build = REPO_ROOT / "_build/html"
    if not (build / "search.html").is_file():
        pytest.skip("the course's book is not built")
    parts = course_map()
    chapters = ["book/index"] + [e.page for part in parts for e in part.entries if e.children]
    for page in chapters:
        html = (build / f"{page}.html").read_text(encoding="utf-8")
        section = html[html.index("prefixlab-course-map"):]
        start = posixpath.dirname(page)
        missing = [p for p in toc_pages(parts)
                   if f'href="{posixpath.relpath(p + ".html", start)}' not in section and p != page]
        assert not missing, f"{page}: the course map does not link {missing}"


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_mathjax_only_on_pages_with_a_formula(build):
    # Sphinx would also add it to pages whose toctree reaches a formula (front page, chapter page).
    for page in pages(build):
        html = page.read_text(encoding="utf-8")
        loads = html.count("prefixlab-vendor/mathjax/startup.js")
        has_formula = 'class="math notranslate' in html
        assert loads == (1 if has_formula else 0), f"{page.relative_to(build)}: MathJax loaded {loads}x"
        assert ("window.MathJax = {" in html) == has_formula, page.relative_to(build)  # its config


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_no_page_loads_the_themes_fontawesome_js(build):
    # 1.5 MB on every page; the theme's CSS webfont draws the same icons.
    for page in pages(build):
        assert "scripts/fontawesome.js" not in page.read_text(encoding="utf-8"), page.relative_to(build)


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_only_the_search_page_loads_the_search_index(build):
    # The theme would load it on every page for search-as-you-type, which is off.
    for page in pages(build):
        loads = "searchindex.js" in page.read_text(encoding="utf-8")
        assert loads == (page.name == "search.html"), page.relative_to(build)


def visible_text(html: str) -> str:
    """The page without scripts, styles and embedded figure JSON: what a reader reads."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_no_raw_glue_reference_in_built_pages(build):
    # A glue role MyST did not resolve (e.g. wrapped in backticks) shows up as literal "{glue".
    bad = [f"{p.relative_to(build)}: …{m.group(0)}…" for p in pages(build)
           for m in re.finditer(r".{0,30}\{glue.{0,30}", visible_text(p.read_text(encoding="utf-8")))]
    assert not bad, "raw glue references:\n" + "\n".join(bad)


MATH = re.compile(r'<(span|div) class="math notranslate[^"]*">(.*?)</\1>', re.S)


@pytest.mark.parametrize("build", built(), ids=lambda b: b.relative_to(REPO_ROOT).as_posix())
def test_no_prose_parsed_as_maths(build):
    # dollarmath turns "$5.00 … $0.50" into a formula: Chinese or a role inside one means prose was eaten.
    bad = []
    for p in pages(build):
        for m in MATH.finditer(p.read_text(encoding="utf-8")):
            body = re.sub(r"\\text\{[^}]*\}", " ", m.group(2))   # Chinese inside \text{} is meant
            if re.search(r"[\u4e00-\u9fff]|glue|\{[a-z]+:", body):
                bad.append(f"{p.relative_to(build)}: {body[:80]!r}")
    assert not bad, "prose parsed as maths:\n" + "\n".join(bad)
