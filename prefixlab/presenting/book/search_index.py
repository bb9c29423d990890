"""How the book's Chinese search index is cut into words, and what stays out of it.

Sphinx's Chinese search cuts text with jieba and keeps only words of two or more characters;
the search page (searchtools.js) splits a query at every character that is not a letter or a
digit and looks each piece up as a whole word. A glossary term jieba does not know (改写历史
cut as 改写 + 历史 is indexed as both and as neither whole) or a one-character term (轮) is then
never found. So:

- every glossary term of ``book/glossary.md`` (each Chinese run of its name) is a jieba word,
  next to the extra words of ``zh_search_terms.txt``;
- a one-character piece of a glossary term's query (轮, the n of n−1 上限) is kept in the index;
- the agent picture and the course map, the same on every page, are left out of it.

``query_terms`` and ``page_matches`` redo the search page's matching in Python, so a test can
check that each term finds its defining page without building the book.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from docutils import nodes

HERE = Path(__file__).parent
EXTRA_WORDS = HERE / "zh_search_terms.txt"
GLOSSARY = Path("book/glossary.md")  # relative to the book root
WORD_FREQUENCY = 2000  # high enough that jieba keeps the word whole in any sentence
HAN_RUN = re.compile(r"[\u4e00-\u9fff]+")
QUERY_SPLIT = re.compile(r"[^\w]+")  # searchtools.js splitQuery: not a letter, digit or _
COURSE_MAP_CLASS = "prefixlab-course-map"  # sphinx_course_map.py
PICTURE_MARKER = 'class="prefixlab-picture"'  # prefixlab/presenting/agent_picture.py


def glossary_entries(glossary: Path) -> list[tuple[list[str], str | None]]:
    """(names, defining page without extension, or None) for each entry of the glossary."""
    text = glossary.read_text(encoding="utf-8")
    entries = []
    for m in re.finditer(r"^([^\n:#][^\n]*)\n: (.*?)(?=\n\n|\Z)", text, flags=re.M | re.S):
        names = [t.strip() for t in re.split(r"\s*/\s*", m.group(1).strip()) if t.strip()]
        d = re.search(r"定义于 \[[^\]]*\]\(([^)#]+)", m.group(2))
        page = None
        if d:
            page = re.sub(r"\.(ipynb|md)$", "", posixpath.normpath(posixpath.join("book", d.group(1))))
        entries.append((names, page))
    return entries


def glossary_terms(glossary: Path) -> list[str]:
    return [name for names, _ in glossary_entries(glossary) for name in names]


def dictionary_words(glossary: Path) -> list[str]:
    """The jieba words: the extra words file and each Chinese run (≥ 2 characters) of every term."""
    words = [line.split()[0] for line in EXTRA_WORDS.read_text(encoding="utf-8").splitlines() if line.strip()]
    for term in glossary_terms(glossary):
        words += [run for run in HAN_RUN.findall(term) if len(run) > 1]
    return list(dict.fromkeys(words))


def load_dictionary(glossary: Path) -> None:
    import jieba

    jieba.setLogLevel(logging.WARNING)  # its "Building prefix dict" chatter is noise
    for word in dictionary_words(glossary):
        jieba.add_word(word, WORD_FREQUENCY)


def query_pieces(query: str) -> list[str]:
    """The pieces searchtools.js looks up (lower-cased, before stemming)."""
    return [p for p in QUERY_SPLIT.split(query.lower().strip()) if p]


def short_pieces(glossary: Path) -> frozenset[str]:
    """One-character query pieces of glossary terms (轮, the n of n−1 上限), kept in the index."""
    return frozenset(p for t in glossary_terms(glossary) for p in query_pieces(t) if len(p) == 1 and not p.isdigit())


def make_search_language(glossary: Path):
    """Sphinx's SearchChinese with the course's words loaded and its one-character terms kept."""
    from sphinx.search.zh import SearchChinese

    keep = short_pieces(glossary)

    class CourseSearchChinese(SearchChinese):
        def init(self, options):
            super().init(options)
            load_dictionary(glossary)

        def word_filter(self, stemmed_word: str) -> bool:
            return super().word_filter(stemmed_word) or stemmed_word in keep

    return CourseSearchChinese


def unindexed(node: nodes.Node) -> bool:
    """The course map and the agent picture: the same on every page, so they match every query."""
    if isinstance(node, nodes.Element) and COURSE_MAP_CLASS in node.get("classes", []):
        return True
    return isinstance(node, nodes.raw) and PICTURE_MARKER in node.astext()


def without_unindexed(doctree: nodes.document) -> nodes.document:
    """A copy of ``doctree`` without the nodes ``unindexed`` names (the page itself keeps them)."""
    copy = doctree.deepcopy()
    for node in list(copy.findall(unindexed)):
        if node.parent is not None:
            node.parent.remove(node)
    return copy


# --- the search page's matching, in Python --------------------------------------------------------

@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def query_terms(query: str) -> set[str]:
    """searchtools.js _parseQuery: split, drop digits and stopwords, stem (Porter ≈ snowball English)."""
    from sphinx.search.zh import SearchChinese

    return {_stemmer().stemWord(p) for p in query_pieces(query)
            if not p.isdigit() and p not in SearchChinese.stopwords}


def page_words(language, texts: Iterable[str]) -> set[str]:
    """The index words of a page's texts, as IndexBuilder would store them."""
    words = set()
    for text in texts:
        for word in language.split(text):
            stemmed = language.stem(word)
            if language.word_filter(stemmed):
                words.add(stemmed)
    return words


def page_matches(terms: set[str], words: set[str]) -> bool:
    """searchtools.js performTermsSearch: every term found (a term of ≥ 3 characters may match part of
    a word); terms of ≤ 2 characters may go unmatched if every longer one matched."""
    def found(term: str) -> bool:
        return term in words or (len(term) > 2 and any(term in w for w in words))

    matched = {t for t in terms if found(t)}
    return bool(matched) and (matched == terms or len(matched) == len({t for t in terms if len(t) > 2}))


def source_texts(path: Path) -> list[str]:
    """A page's markdown, paragraph by paragraph, without link targets and markup: a part of what
    the built index holds (it also holds code and outputs), enough to find a page's own terms."""
    import json

    if path.suffix == ".ipynb":
        cells = ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                 if c["cell_type"] == "markdown"]
    else:
        cells = [path.read_text(encoding="utf-8")]
    texts = []
    for cell in cells:
        cell = re.sub(r"\]\([^)]*\)", "]", cell)
        cell = re.sub(r"\{[\w:-]+\}`[^`]*`", " ", cell)  # glue roles: their value is not in the source
        texts += [p for p in re.split(r"\n\s*\n", cell) if p.strip()]
    return texts
