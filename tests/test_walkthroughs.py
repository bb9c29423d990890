"""data/walkthroughs.yml: every note finds exactly one line of the live miniagent source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from prefixlab.presenting.book.walkthrough import (
    WALKTHROUGHS,
    WalkthroughError,
    build_walkthrough,
    find_object,
    get_walkthrough,
    parse_walkthroughs,
    render_walkthrough_html,
    walkthrough,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")
ENTRY = {
    "title": "路径",
    "module": "miniagent.session",
    "object": "Session.path_to",
    "notes": [{"at": "return out[::-1]", "text": "倒过来才是从根到叶子。"}],
}


def all_ids() -> list[str]:
    return list(yaml.safe_load(WALKTHROUGHS.read_text(encoding="utf-8"))["walkthroughs"])


@pytest.mark.parametrize("wid", all_ids())
def test_every_note_finds_its_line_in_the_live_source(wid):
    w = get_walkthrough(wid)  # raises when an anchor matches no line or several
    numbers = [n for n, _ in w.lines]
    for note in w.notes:
        assert numbers[0] <= note.first <= note.last <= numbers[-1]
        assert CJK.search(note.text), (wid, note.label)
    # The listing is the package's own source, line for line.
    source = w.source_path.read_text(encoding="utf-8").splitlines()
    assert [text for _, text in w.lines] == source[numbers[0] - 1:numbers[-1]]


def test_every_walkthrough_is_used_by_a_page():
    pages = "".join(p.read_text(encoding="utf-8") for p in REPO_ROOT.glob("book/**/*.ipynb"))
    used = set(re.findall(r"```\{code-walkthrough\}\s+([a-z0-9-]+)", pages))
    used |= set(re.findall(r"""walkthrough\(\s*\\?["']([a-z0-9-]+)""", pages))
    assert set(all_ids()) <= used
    assert used <= set(all_ids()), "a page uses an unknown walkthrough id"


def test_listing_renders_highlighted_lines_with_linked_notes():
    w = build_walkthrough("x", ENTRY, source="test")
    card = render_walkthrough_html(w)
    last = w.lines[-1][0]
    assert 'class="prefixlab-walkthrough prefixlab-noted"' in card and '<div class="highlight">' in card
    assert f'href="#walkthrough-x-note-1" data-note="1" title="点击查看这几行的注释">{last}' in card
    assert f'<li id="walkthrough-x-note-1" data-note="1"><span class="prefixlab-notes__where">第 {last} 行' in card
    assert f"注 1 · 第 {last} 行:倒过来才是从根到叶子。" in repr(walkthrough("session-path-to").__class__(w))


@pytest.mark.parametrize("change, message", [
    ({"notes": [{"at": "no such text", "text": "找不到。"}]}, "matches no line"),
    ({"notes": [{"at": "current", "text": "太多行。"}]}, "must match exactly one line; it matches "),
    ({"notes": [{"at": "return out", "through": "while current", "text": "倒着。"}]}, "'while current' must match"),
    ({"notes": [{"at": "while current", "through": "return out", "text": "一段。"},
                {"at": "out.append", "text": "重叠。"}]}, "overlap"),
    ({"object": "Session.nothing"}, "no 'Session.nothing' in the source (missing 'nothing')"),
    ({"module": "miniagent.nothing"}, "module 'miniagent.nothing' has no Python source file"),
])
def test_bad_walkthroughs_are_rejected_with_the_reason(change, message):
    with pytest.raises(WalkthroughError, match=re.escape(message)):
        build_walkthrough("x", {**ENTRY, **change}, source="test")


def test_schema_errors_and_unknown_ids_are_clear(tmp_path):
    with pytest.raises(WalkthroughError, match="schema error"):
        parse_walkthroughs(yaml.safe_dump({"walkthroughs": {"x": {**ENTRY, "module": "os.path"}}}))
    with pytest.raises(WalkthroughError, match="unknown walkthrough id 'nope'"):
        get_walkthrough("nope")
    with pytest.raises(WalkthroughError, match="not found"):
        get_walkthrough("x", tmp_path / "missing.yml")


def test_find_object_includes_decorators():
    source = "class A:\n    @property\n    def b(self):\n        return 1\n"
    assert find_object(source, "A.b", where="t") == (2, 4)


def test_myst_directive_renders_the_walkthrough(tmp_path):
    html, warnings = _sphinx_build(tmp_path, "```{code-walkthrough} session-path-to\n```\n")
    assert not warnings.strip(), warnings
    assert 'id="walkthrough-session-path-to"' in html and 'href="#walkthrough-session-path-to-note-1"' in html
    _, warnings = _sphinx_build(tmp_path / "2", "```{code-walkthrough} nope\n```\n")
    assert "unknown walkthrough id 'nope'" in warnings


def _sphinx_build(tmp_path: Path, body: str) -> tuple[str, str]:
    """Build one MyST page with the citation extension; return (html, warnings)."""
    import io

    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    src = tmp_path / "src"
    src.mkdir(parents=True)
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
