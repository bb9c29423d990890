"""Checks over the book's sources (notebooks, glossary, style sheet) that keep it readable in order.

They read only the repository: the pages' markdown cells, their committed figure outputs,
_toc.yml, book/glossary.md and book/STYLE.md. The built-HTML twins are in tests/test_book_html.py.
"""

from __future__ import annotations

import json
import posixpath
import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]


def toc_pages() -> list[str]:
    """Every page of _toc.yml in reading order, as repo-relative paths without extension."""
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    order = [toc["root"]]

    def walk(entries):
        for entry in entries:
            order.append(entry["file"])
            walk(entry.get("sections", []))

    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    return order


def source(page: str) -> Path:
    for ext in (".ipynb", ".md"):
        if (REPO_ROOT / (page + ext)).is_file():
            return REPO_ROOT / (page + ext)
    raise FileNotFoundError(page)


@lru_cache(maxsize=None)
def markdown_cells(page: str) -> tuple[str, ...]:
    path = source(page)
    if path.suffix == ".md":
        return (path.read_text(encoding="utf-8"),)
    nb = json.loads(path.read_text(encoding="utf-8"))
    return tuple("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def prose(text: str) -> str:
    """Markdown without code (fenced, inline), link targets, glue roles and directive options."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", text)      # {glue:text}`name`, {doc}`x`
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"^:[\w-]+:.*$", " ", text, flags=re.M)
    return text


PAGES = toc_pages()
NOTEBOOK_PAGES = [p for p in PAGES if source(p).suffix == ".ipynb"]


# --- rendering accidents the -W build lets through --------------------------------------------

@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_no_glue_role_inside_inline_code(page):
    # `{glue:text}`name`` renders as the literal text "{glue:text} name".
    bad = [m.group(0) for cell in markdown_cells(page) for m in re.finditer(r".{0,20}`\{glue[^}]*\}.{0,30}", cell)]
    assert not bad, f"{page}: glue role inside backticks (renders raw):\n" + "\n".join(bad)


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_no_dollar_sign_before_a_glued_number(page):
    # With dollarmath on, "$" + a glue role + a later "$" is parsed as a formula: the number vanishes.
    bad = [m.group(0) for cell in markdown_cells(page) for m in re.finditer(r".{0,20}\$\{glue.{0,30}", cell)]
    assert not bad, f"{page}: '$' before a glue role (write US$ or 美元 after the number):\n" + "\n".join(bad)


def plotly_figures(page: str):
    path = source(page)
    if path.suffix != ".ipynb":
        return
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            fig = out.get("data", {}).get("application/vnd.plotly.v1+json")
            if fig:
                yield i, fig


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_no_empty_figure_annotation(page):
    # plotly draws an annotation without text as the placeholder "new text".
    bad = []
    for i, fig in plotly_figures(page):
        for ann in fig.get("layout", {}).get("annotations", []):
            text = str(ann.get("text", "")).strip()
            if not text or text.lower() == "new text":
                bad.append(f"cell {i}: {ann}")
    assert not bad, f"{page}: empty figure annotations:\n" + "\n".join(bad)


# --- reading order -------------------------------------------------------------------------------

def chapter_of(page: str) -> str:
    return posixpath.dirname(page)


def next_chapter_index(page: str) -> str | None:
    later = PAGES[PAGES.index(page) + 1:]
    return next((p for p in later if p.endswith("/index") and chapter_of(p) != chapter_of(page)), None)


def link_targets(cell: str, page: str) -> list[str]:
    targets = []
    for href in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", cell):
        if re.match(r"^[a-z]+:", href):
            continue
        targets.append(re.sub(r"\.(ipynb|md)$", "", posixpath.normpath(posixpath.join(chapter_of(page), href))))
    return targets


GAP = re.compile(r"\*\*(?:下一个缺口|回到主线)[::]?\*\*[::]?")


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_next_gap_points_to_the_next_page_or_the_next_chapter(page):
    cells = [c for c in markdown_cells(page) if GAP.search(c)]
    if not cells:
        return
    text = GAP.split(cells[-1])[-1].split("**岔路")[0]   # a side road (岔路) may point elsewhere
    i = PAGES.index(page)
    forward = [t for t in link_targets(text, page) if t in PAGES and PAGES.index(t) > i]
    nxt = next_chapter_index(page)
    allowed = {PAGES[i + 1] if i + 1 < len(PAGES) else None, nxt,
               PAGES[PAGES.index(nxt) + 1] if nxt else None} - {None}   # or the next chapter's first lesson
    assert forward, f"{page}: 下一个缺口 links to no later page"
    assert set(forward) <= allowed, f"{page}: 下一个缺口 points to {forward}, expected one of {sorted(allowed)}"


# Sentences written in the order the book was built, not read.
AUTHORING_ORDER = ["还在写", "都已上线", "已经上线的章节", "Chapters so far", "和 A6 一样"]


def lesson_label(page: str) -> str | None:
    m = re.match(r"book/a(\d)/a\d-([0-9a-z])-", page)
    return f"A{m.group(1)}·{m.group(2).upper()}" if m else None


LABELS = {lesson_label(p): p for p in PAGES if lesson_label(p)}


@pytest.mark.parametrize("page", PAGES)
def test_no_status_or_authoring_order_sentences(page):
    text = "\n".join(markdown_cells(page))
    found = [s for s in AUTHORING_ORDER if s in text]
    # "A6·2 讲过" / "上一课 A6·2" only about a lesson the reader has already passed.
    i = PAGES.index(page)
    for label in re.findall(r"(A\d·[0-9LR])\s*(?:里)?讲过", text) + re.findall(r"上一课\s*\[?(A\d·[0-9LR])", text):
        if label in LABELS and PAGES.index(LABELS[label]) >= i:
            found.append(f"{label} 讲过 (not read yet)")
        if re.search(rf"上一课\s*\[?{label}", text) and i > 0 and PAGES[i - 1] != LABELS.get(label):
            found.append(f"上一课 {label} (the previous page is {PAGES[i - 1]})")
    assert not found, f"{page}: {sorted(set(found))}"


# --- glossary ------------------------------------------------------------------------------------

def glossary_entries() -> list[tuple[list[str], str]]:
    """(terms, defining page) for each glossary entry with a 定义于 link."""
    text = (REPO_ROOT / "book/glossary.md").read_text(encoding="utf-8")
    entries = []
    for m in re.finditer(r"^([^\n:#][^\n]*)\n: (.*?)(?=\n\n|\Z)", text, flags=re.M | re.S):
        head, body = m.group(1).strip(), m.group(2)
        d = re.search(r"定义于 \[[^\]]*\]\(([^)#]+)", body)
        if not d:
            continue
        terms = [t.strip() for t in re.split(r"\s*/\s*", head) if t.strip()]
        entries.append((terms, re.sub(r"\.(ipynb|md)$", "", posixpath.normpath(posixpath.join("book", d.group(1))))))
    return entries


ENTRIES = glossary_entries()


def test_glossary_has_entries():
    assert len(ENTRIES) >= 30


@pytest.mark.parametrize("terms,page", ENTRIES, ids=lambda x: x if isinstance(x, str) else "/".join(x))
def test_glossary_defining_page_uses_the_term_and_no_earlier_lesson_does(terms, page):
    assert page in PAGES, f"{terms}: 定义于 {page}, which is not in _toc.yml"
    term = terms[0]
    assert any(term in prose(c) for c in markdown_cells(page)), f"{term}: not on its defining page {page}"
    # Earlier lessons (not the front page or chapter pages, which preview) must not use it first,
    # unless the paragraph links forward to where it is defined (or to the glossary).
    def unexplained(cell: str, p: str) -> bool:
        return any(term in prose(par)
                   and not {page, chapter_of(page) + "/index", "book/glossary"} & set(link_targets(par, p))
                   for par in re.split(r"\n\s*\n", cell))

    earlier = [p for p in PAGES[:PAGES.index(page)]
               if not p.endswith("/index") and any(unexplained(c, p) for c in markdown_cells(p))]
    assert not earlier, f"{term}: 定义于 {page}, but used before on {earlier}"


# --- style sheet -----------------------------------------------------------------------------------

def banned_terms() -> dict[str, tuple[str, ...]]:
    """Each banned term with the longer strings that contain it but are not it (after "例外:")."""
    text = (REPO_ROOT / "book/STYLE.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- banned-terms -->\s*```text\n(.*?)```", text, flags=re.S)
    assert block, "book/STYLE.md: no banned-terms block"
    terms = {}
    for line in block.group(1).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        rule, _, exceptions = line.partition("例外:")
        term = rule.split("→")[0].strip()
        terms[term] = tuple(e.strip() for e in exceptions.split("、") if e.strip())
        assert all(term in e for e in terms[term]), f"book/STYLE.md: an exception of {term} must contain it"
    return terms


def banned_in(text: str) -> list[str]:
    found = []
    for term, exceptions in banned_terms().items():
        rest = text
        for e in exceptions:
            rest = rest.replace(e, " ")
        if term in rest:
            found.append(term)
    return found


def test_banned_term_exceptions_are_honoured():
    assert "读回" in banned_terms() and "读回答" in banned_terms()["读回"]
    assert banned_in("从标准输出读回答") == []
    assert banned_in("服务器读回 815 个 token") == ["读回"]
    assert banned_in("读回答,又读回 3 个") == ["读回"]


@pytest.mark.parametrize("page", PAGES)
def test_no_banned_synonym_in_prose(page):
    text = "\n".join(prose(c) for c in markdown_cells(page))
    found = banned_in(text)
    assert not found, f"{page}: banned synonyms (see book/STYLE.md): {found}"


DRAWN_STRING_SOURCES = ("data/agent-picture.yml", "data/citations.yml", "data/*/evolution.yml",
                        "prefixlab/presenting/**/*.py", "chapters/*/figures/*.py", "chapters/*/exercises/*.py",
                        "chapters/*/lab/*.py")


@pytest.mark.parametrize("path", sorted({str(p.relative_to(REPO_ROOT)) for pattern in DRAWN_STRING_SOURCES
                                          for p in REPO_ROOT.glob(pattern)}))
def test_no_banned_synonym_in_strings_drawn_on_pages(path):
    """The agent picture, evolution maps, cards, figures, exercise feedback and labs say what the prose says."""
    found = banned_in((REPO_ROOT / path).read_text(encoding="utf-8"))
    assert not found, f"{path}: banned synonyms (see book/STYLE.md): {found}"


# --- search ------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def search_language():
    pytest.importorskip("jieba")
    from prefixlab.presenting.book import search_index

    return search_index.make_search_language(REPO_ROOT / search_index.GLOSSARY)({})


@lru_cache(maxsize=None)
def search_words(page: str) -> frozenset[str]:
    from prefixlab.presenting.book import search_index

    return frozenset(search_index.page_words(search_language(), search_index.source_texts(source(page))))


@pytest.mark.parametrize("term,page", [(t, p) for terms, p in ENTRIES for t in terms], ids=str)
def test_glossary_term_search_finds_its_defining_page(term, page):
    # The same cutting as the built index (jieba with the course's words) and the same matching as
    # the search page: a term jieba cuts apart, or a one-character term, would find nothing.
    from prefixlab.presenting.book import search_index

    terms = search_index.query_terms(term)
    assert search_index.page_matches(terms, search_words(page)), (
        f"searching {term!r} (terms {sorted(terms)}) does not find its defining page {page}")


def test_search_index_leaves_out_the_agent_picture_and_the_course_map():
    from docutils import nodes
    from docutils.utils import new_document

    from prefixlab.presenting.book import search_index

    doc = new_document("page")
    doc += nodes.paragraph(text="改写历史")
    doc += nodes.raw("", '<div class="prefixlab-picture" id="p">从已有出发</div>', format="html")
    doc += nodes.container("", nodes.paragraph(text="课程地图"), classes=["prefixlab-course-map"])
    kept = search_index.without_unindexed(doc)
    assert kept.astext() == "改写历史"
    assert "从已有出发" in doc.astext() and "课程地图" in doc.astext()  # the page itself keeps them
