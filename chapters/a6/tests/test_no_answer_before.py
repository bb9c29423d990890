"""No exercise of chapter A6 has its answer anywhere a reader has already seen: the chapter page in full,
every earlier lesson in full (its evolution map included), and the exercise's own lesson above it.

What counts as seen is the rendered page: markdown, every output of every kind (printed text, HTML, the
plotly JSON with its hovers), except outputs the page does not show — a glued value (MyST-NB ``glue``
with ``display=False``, inserted only where the prose cites it, which the markdown already holds) and
outputs of cells tagged ``remove-output`` / ``remove-cell``. Reading order is the table of contents.

An answer the checker accepts within a tolerance (``chapters/a6/exercises/tolerance.py``: ±5 tokens) is
given away by any number within that tolerance on the exercise's own page and the chapter page (see
``Near``); HTML attributes and a citation's line numbers are not numbers a reader takes for a measurement."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest

from prefixlab.paths import RECORDINGS, REPO_ROOT
from prefixlab.recording.format import load
from chapters.a6.exercises import a6_1, a6_2, a6_3, a6_4, a6_r, tolerance
from chapters.a6.figures import agents_md_explorer, memory_timing, session_tree, skills

BOOK = REPO_ROOT / "book" / "a6"
ORDER = ["index", "a6-1-instruction-files", "a6-2-memory-timing", "a6-3-skills", "a6-4-session-tree",
         "a6-r-memory-vs-retrieval"]
HIDDEN_TAGS = {"remove-output", "remove-cell"}


def _visible_outputs(cell: dict) -> list[str]:
    if HIDDEN_TAGS & set(cell.get("metadata", {}).get("tags", [])):
        return []
    parts = []
    for out in cell.get("outputs", []):
        if "scrapbook" in out.get("metadata", {}):
            continue  # a glued value: shown only where the markdown cites it
        parts.append("".join(out.get("text", "")))
        for value in out.get("data", {}).values():
            parts.append(value if isinstance(value, str) else "".join(value) if isinstance(value, list)
                         else json.dumps(value, ensure_ascii=False))
    return parts


def rendered(page: str, upto: str | None = None) -> str:
    """What a reader sees on ``page``: all of it, or everything above the first code cell holding ``upto``."""
    cells = json.loads((BOOK / f"{page}.ipynb").read_text(encoding="utf-8"))["cells"]
    parts = []
    for cell in cells:
        source = "".join(cell["source"])
        if upto is not None and cell["cell_type"] == "code" and upto in source:
            return "\n".join(parts)
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        if cell["cell_type"] == "markdown":
            parts.append(source)
        parts += _visible_outputs(cell)
    if upto is not None:
        raise AssertionError(f"{page}: no code cell with {upto!r}")
    return "\n".join(parts)


def seen_before(page: str, marker: str) -> str:
    """Every page before ``page`` in reading order, in full, and ``page`` above the exercise."""
    earlier = ORDER[:ORDER.index(page)]
    return "\n".join([*(rendered(p) for p in earlier), rendered(page, marker)])


def number(n: int, tolerance: int = 0) -> re.Pattern:
    """n written as a number (or any number within ``tolerance`` of it): not part of a longer number nor
    of a word such as a commit hash."""
    forms = "|".join(re.escape(f) for m in range(n - tolerance, n + tolerance + 1) for f in sorted({str(m), f"{m:,}"}))
    return re.compile(rf"(?<![0-9A-Za-z,.])(?:{forms})(?![0-9A-Za-z,])")


@dataclass(frozen=True)
class Near:
    """An answer checked with ``tolerance.near``: the checker accepts any number within the tolerance.

    On the exercise's own page above it and on the chapter page, any such number gives the answer away.
    On the earlier lessons only the exact number is looked for: their tables and figure hovers hold
    hundreds of token counts of other recordings of the same scripted sessions (the same base prompt,
    tools and turns), so a count within a few tokens there is another request, not this answer."""

    n: int


def near(n: int) -> Near:
    return Near(n)


# Text a reader sees that is never a measured number: HTML tags and their attributes (a citation's
# data-first-line), a cited file's line numbers (its quote block, "第 1756–1793 行", "#L1756-L1793",
# and the numbered quote lines of the card's plain-text form).
NOT_NUMBERS = [re.compile(r'<(pre|blockquote) class="prefixlab-citation__quote".*?</\1>', re.S),
               re.compile(r"<(?=/?[A-Za-z])[^<>]*>"), re.compile(r"第 \d+[–-]\d+ 行"),
               re.compile(r"#L\d+(?:-L\d+)?"), re.compile(r"^ {2,}\d+ {2,}", re.M)]


def without_line_numbers(text: str) -> str:
    for pattern in NOT_NUMBERS:
        text = pattern.sub(" ", text)
    return text


def _answers():
    """(page, the exercise's code marker, what its answer looks like written on a page)."""
    t10, t11 = load(RECORDINGS / "t10-smollm2-llamacpp"), load(RECORDINGS / "t11-smollm2-llamacpp")
    t12, forks = load(RECORDINGS / "t12-smollm2-llamacpp"), load(RECORDINGS / "t13-forks-smollm2-llamacpp")
    t14 = load(RECORDINGS / "t14-smollm2-llamacpp")

    right = lambda verdict: verdict.startswith("对")  # noqa: E731
    compaction = a6_1._after_compaction(t11, "agents-day1")[1].measured
    calls = t11.session_calls("edit-reload-day1")
    edited = next(b for a, b in zip(calls, calls[1:]) if b.request["messages"][0] != a.request["messages"][0])
    edit = edited.cached_tokens
    assert right(a6_1.check_compaction_hit(t11, compaction)) and right(a6_1.check_edit_hit(t11, edit))
    explorer = agents_md_explorer.explore()
    billing = next(r for r in explorer.rows if r.cwd == "services/billing")
    yield "a6-1-instruction-files", "check_compaction_hit(", near(compaction)
    yield "a6-1-instruction-files", "check_edit_hit(", near(edit)
    yield ("a6-1-instruction-files", "check_loaded(",
           re.compile(re.escape("services/AGENTS.md → services/api/AGENTS.md")))
    yield "a6-1-instruction-files", "check_cut(", number(billing.cut(1024))

    from prefixlab.cache.calculator import analyze

    yield ("a6-2-memory-timing", "exercises.check_hit(",
           near(next(r.measured for r in analyze(t10, sessions="refresh-day2") if r.round == 1)))
    second = next(r.read for r in a6_2.two_writes(t10) if r.round == a6_2.SECOND_WRITE_ROUND + 1)
    yield "a6-2-memory-timing", "exercises.check_second_refresh(", number(second, a6_2.TOLERANCE)
    for label, _, config in memory_timing.RULE_OPTIONS:
        if "breakpoints" in config:
            yield "a6-2-memory-timing", "exercises.check_layout(", re.compile(re.escape(label))

    manifest = skills.load_manifest()
    yield "a6-3-skills", "check_fit(", re.compile(rf"(?<![\d,.]){len(a6_3.inlined_skills(t12))}\s*份")
    yield "a6-3-skills", "check_added_hit(", near(skills.break_view(t12, "added-volatile-day1", "v").cached)
    yield "a6-3-skills", "check_index_tokens(", number(a6_3.index_tokens(manifest, skills.CITED_CAPS["spec"][0]))

    tree = session_tree.session_tree(forks, "day1.jsonl")
    # a count of entries is a small number ("第 8 轮" is everywhere): look for it as a count of entries
    yield ("a6-4-session-tree", "check_lost(",
           re.compile(rf"(?<![\d,.]){len(a6_4.truncated(tree, 'fork-r7'))}\s*(?:个)?条目"))
    yield "a6-4-session-tree", "check_fork_hit(", near(forks.session_calls("fork-r5")[0].cached_tokens)
    one_slot = load(RECORDINGS / "t13-switch-one-slot")
    row, _ = a6_4.switch_backs(session_tree.switch_rows(one_slot))[0]
    yield "a6-4-session-tree", "check_switch_hit(", near(row.measured)
    yield "a6-4-session-tree", "check_full_reuse(", re.compile("次整段读取")

    for strategy in ("select", "retrieve"):
        _, row = a6_r.turn_start(t14, strategy)
        marker = f'check_turn_hit(rec, "{strategy}"'
        if strategy == "select" and row.measured == same_prefix_as_a6_2(t10, t14):
            # the select group breaks where A6·2's refresh broke, after the same blocks: working the
            # answer out from A6·2's number is the exercise. It must not be on A6·R itself before it.
            yield "a6-r-memory-vs-retrieval", marker, near(row.measured), "own page"
            continue
        if strategy == "retrieve" and row.measured == t11_compaction_read(t11):
            # a coincidence of two different prefixes: T14's retrieve group reads up to the end of its first
            # user message (no memory block), T11's message variant after compaction up to the start of its
            # summary message (an empty memory block). A6·1's table cannot tell a reader this answer.
            yield "a6-r-memory-vs-retrieval", marker, near(row.measured), "own page"
            continue
        yield "a6-r-memory-vs-retrieval", marker, near(row.measured)
    for task in a6_r.never_complete():
        yield "a6-r-memory-vs-retrieval", "check_never_complete(", re.compile(re.escape(f"{task}(缺"))


def same_prefix_as_a6_2(t10, t14) -> int | None:
    """T14's select group at user request 2 and T10's refresh round read back the same blocks (template
    opening, base prompt, AGENTS.md, memory header) of the same text: the same number, or None."""
    from prefixlab.cache.calculator import analyze

    calls = {c.seq: c for c in t10.session_calls("refresh-day1")}
    rows = analyze(t10, sessions="refresh-day1")
    refresh = next(b for a, b in zip(rows, rows[1:])
                   if calls[b.seq].request["messages"][0] != calls[a.seq].request["messages"][0])
    _, select = a6_r.turn_start(t14, "select")
    same = refresh.break_block == select.break_block == "memory_body" and refresh.measured == select.measured
    return select.measured if same else None


def t11_compaction_read(t11) -> int:
    """What A6·1's first table shows for the message variant's first request after compaction (D1·8)."""
    from chapters.a6.figures import rule_placement

    mine = [r for r in rule_placement.request_rows(t11) if r.session == "message-day1"]
    i = next(i for i, r in enumerate(mine) if r.kind == "compaction")
    return next(r for r in mine[i + 1:] if r.kind == "model_call").cached_tokens


def _expanded(answers):
    for page, marker, pattern, *scope in answers:
        scope = scope[0] if scope else "every page before"
        if not isinstance(pattern, Near):
            yield page, marker, pattern, scope
            continue
        yield page, marker, number(pattern.n), scope
        yield page, marker, number(pattern.n, tolerance.TOKENS), "own page" if scope == "own page" else "chapter and own page"


ANSWERS = list(_expanded(_answers()))


@pytest.mark.parametrize("page, marker, pattern, scope", ANSWERS,
                         ids=[f"{p.split('-', 2)[1]}:{m.rstrip('(')}:{pat.pattern[-12:]}" for p, m, pat, _ in ANSWERS])
def test_no_answer_is_on_any_page_a_reader_has_seen_before_the_exercise(page, marker, pattern, scope):
    text = (seen_before(page, marker) if scope == "every page before" else rendered(page, marker) if scope == "own page"
            else rendered("index") + "\n" + rendered(page, marker))
    text = without_line_numbers(text)
    found = pattern.search(text)
    assert not found, f"{page} {marker}: the answer is already shown: …{text[max(0, found.start() - 80):found.end() + 40]}…"


def test_the_chapter_pages_map_is_part_of_what_is_checked():
    page = rendered("index")
    assert "prefixlab-evolution" in page and "演进地图" in page
    for lesson in ORDER[1:]:
        assert "prefixlab-evolution" in rendered(lesson), lesson  # every lesson's map is read in full too


def test_an_answer_within_the_stated_tolerance_counts_as_shown():
    pattern = number(1234, tolerance.TOKENS)
    for shown in ("读取 1,229 个", "读取 1239 个", "1,234"):
        assert pattern.search(shown), shown
    for other in ("读取 1,228 个", "1240", "12345", "v1.1234"):
        assert not pattern.search(other), other
    assert number(50, 1).search("49 个") and not number(50).search("49 个")
