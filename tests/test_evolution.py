"""The evolution map component: the data file, the queries over recordings, the view, finding a chapter's map.

Chapter A6's shipped map is tested in chapters/a6/tests/test_evolution_map.py."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from prefixlab.presenting import evolution
from prefixlab.presenting.evolution import MapError, evaluate, evolution_map, load_map, next_lesson

T10 = "t10-smollm2-llamacpp"


def write(tmp_path: Path, stages: str, lessons: str | None = None) -> Path:
    lessons = lessons or """\
        - {id: one, label: "L1", title: "第一课", page: book/c1/lesson-one}
        - {id: two, label: "L2", title: "第二课", page: null}
    """
    path = tmp_path / "map.yml"
    path.write_text("chapter: {id: x, title: \"测试章\", page: book/c1/index}\nlessons:\n"
                    + textwrap.indent(textwrap.dedent(lessons), "  ") + "stages:\n"
                    + textwrap.indent(textwrap.dedent(stages), "  "), encoding="utf-8")
    return path


STAGES = """\
    - id: refresh
      title: "写入就刷新"
      lesson: one
      naive: true
      solved: "马上用得上。"
      stuck: "那一轮只命中 {t_cached} 个 <token>。"
      evidence:
        - name: t_cached
          label: "刷新那一轮的命中"
          query: {recording: t10-smollm2-llamacpp, session: refresh-day1, at: system_change, measure: cached_tokens}
    - id: later
      title: "以后"
      lesson: two
      solved: "还没有"
      stuck: "还没有"
    - id: side
      title: "岔路"
      lesson: two
      branch: true
      after: refresh
      solved: "a"
      stuck: "b"
"""


def test_view_marks_the_current_lesson_links_and_escapes(tmp_path):
    view = evolution_map("one", glue=False, path=write(tmp_path, STAGES))
    text = repr(view)
    assert "1. 写入就刷新 · L1 ★" in text and "2. 以后 · L2(未上线)" in text
    assert text.index("↘ 岔路:岔路") < text.index("2. 以后")  # the branch follows the stage it leaves
    cached = view.stages[0].values["t_cached"]
    assert f"只命中 {cached:,} 个 <token>" in text
    page = view._repr_html_()
    assert evolution.HERE in page and page.count(evolution.HERE) == 1
    assert 'href="lesson-one.html"' in page
    assert "&lt;token&gt;" in page and "<token>" not in page
    assert "★" not in repr(evolution_map(None, glue=False, path=write(tmp_path, STAGES)))


def test_a_later_lessons_numbers_are_hidden_and_the_chapter_page_shows_none(tmp_path):
    stages = STAGES.replace("lesson: one\n      naive", "lesson: two\n      naive")
    path = write(tmp_path, stages, """\
        - {id: one, label: "L1", title: "第一课", page: book/c1/lesson-one}
        - {id: two, label: "L2", title: "第二课", page: book/c1/lesson-two}
    """)
    cached = f"{evaluate({'recording': T10, 'session': 'refresh-day1', 'at': 'system_change', 'measure': 'cached_tokens'}):,}"
    for view in (evolution_map("one", glue=False, path=path), evolution_map(None, glue=False, path=path)):
        text, page = repr(view), view._repr_html_()
        assert f"只命中 {evolution.HIDDEN} 个" in text and "在 L2 里测出来" in text
        assert cached not in text and cached not in page and "证据:" not in page
    shown_at_two = evolution_map("two", glue=False, path=path)
    assert f"只命中 {cached} 个" in repr(shown_at_two) and "测出来" not in repr(shown_at_two)


def test_a_collapsed_map_folds_its_html_only(tmp_path):
    path = write(tmp_path, STAGES)
    open_view, folded = (evolution_map("one", glue=False, path=path, collapsed=c) for c in (False, True))
    assert repr(open_view) == repr(folded)
    assert folded._repr_html_().startswith("<details") and "<summary" in folded._repr_html_()
    assert "L1" in folded._repr_html_().split("</summary>")[0]
    assert not open_view._repr_html_().startswith("<details")


def test_glue_stores_each_number_under_its_name(tmp_path, monkeypatch):
    glued = {}
    monkeypatch.setattr(evolution, "glue_text", lambda name, value: glued.setdefault(name, value))
    evolution_map("one", path=write(tmp_path, STAGES))
    assert set(glued) == {"t_cached"}


@pytest.mark.parametrize("query, value", [
    ({"session": "frozen-day1", "at": "all", "measure": "follow_ups"}, None),
    ({"session": "frozen-day1", "at": "round 2", "measure": "cached_tokens"}, None),
    ({"session": "refresh-day2", "at": "first", "measure": "messages_from refresh-day1"}, 0),
    ({"session": "frozen-day1", "at": "first", "measure": "part_tokens tools"}, None),
    # the fork after round 3 of 10: rounds 4-9 leave 3 entries each (call, answer, tool result), round 10 two
    ({"session": "frozen-day1-fork", "at": "first", "measure": "truncated_entries"}, 6 * 3 + 2),
])
def test_queries(query, value):
    result = evaluate({"recording": T10, **query})
    assert isinstance(result, int) and result >= 0
    if value is not None:
        assert result == value


def test_a_query_that_cannot_be_answered_says_why():
    with pytest.raises(MapError, match="no call at 'compaction'"):
        evaluate({"recording": T10, "session": "frozen-day1", "at": "compaction", "measure": "prompt_tokens"})
    with pytest.raises(MapError, match="needs one call"):
        evaluate({"recording": T10, "session": "frozen-day1", "at": "all", "measure": "prompt_tokens"})
    with pytest.raises(MapError, match="unknown measure"):
        evaluate({"recording": T10, "session": "frozen-day1", "at": "first", "measure": "tokens"})
    with pytest.raises(MapError, match="not a fork"):
        evaluate({"recording": T10, "session": "frozen-day1", "at": "first", "measure": "truncated_entries"})
    with pytest.raises(MapError, match="names no rule"):
        evaluate({"recording": T10, "session": "frozen-day1", "at": "first", "measure": "rule_tokens"})


def test_bad_data_files_are_refused(tmp_path):
    with pytest.raises(MapError, match="unknown lesson"):
        load_map(write(tmp_path, STAGES.replace("lesson: two\n      solved: \"还没有\"", "lesson: nine\n      solved: \"还没有\"")))
    with pytest.raises(MapError, match="not its evidence"):
        load_map(write(tmp_path, STAGES.replace("{t_cached}", "{other}")))
    with pytest.raises(MapError, match="unknown 'at'"):
        load_map(write(tmp_path, STAGES.replace("at: system_change", "at: sometimes")))


def test_turn_n_picks_the_first_call_of_the_nth_user_request():
    rec = evolution._recording(T10)
    calls = rec.session_calls("append-day1")  # append adds a user message (the memory update) mid-session
    assert evolution.select(rec, ["frozen-day1"], "turn 1") == rec.session_calls("frozen-day1")[:1]
    second = evolution.select(rec, ["append-day1"], "turn 2")
    assert len(second) == 1 and second[0] is next(
        c for c in calls if sum(m["role"] == "user" for m in c.request["messages"]) == 2)
    with pytest.raises(MapError, match="no call at 'turn 2'"):
        evaluate({"recording": T10, "session": "frozen-day1", "at": "turn 2", "measure": "prompt_tokens"})
    with pytest.raises(MapError, match="'turn N'"):
        evaluate({"recording": T10, "session": "frozen-day1", "at": "turn", "measure": "prompt_tokens"})


def test_a_lesson_finds_its_chapters_map(tmp_path, monkeypatch):
    (tmp_path / "c1").mkdir()
    write(tmp_path / "c1", STAGES).rename(tmp_path / "c1" / "evolution.yml")
    monkeypatch.setattr(evolution, "DATA", tmp_path)
    assert evolution.chapter_of("c1-2") == "c1"
    assert next_lesson("one", path=evolution.map_path("c1")).id == "two"
    assert "★" not in repr(evolution_map(chapter="c1", glue=False))
    with pytest.raises(MapError, match="no evolution map"):
        evolution_map("c9-1", glue=False)
    with pytest.raises(MapError, match="name the chapter"):
        evolution_map(glue=False)


def test_a_results_query_counts_an_evaluations_rows(tmp_path, monkeypatch):
    import json

    from prefixlab.presenting import evolution

    folder = tmp_path / "a9-fake"
    folder.mkdir()
    base = {"task": "t", "design": "text", "passed": False, "why": "check failed: x", "prompt_tokens": 10,
            "cached_tokens": 0, "completion_tokens": 1, "requests": 1, "seconds": 1.0, "stop_reason": "answer"}
    rows_ = [base | {"seed": s, "session": f"s{s}.jsonl"} for s in range(9)]
    rows_.append(base | {"seed": 9, "passed": True, "why": "pass", "session": "s9.jsonl"})
    rows_.append(base | {"seed": 0, "design": "oracle", "passed": True, "why": "pass", "session": "o.jsonl"})
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows_), encoding="utf-8")
    monkeypatch.setattr(evolution, "RECORDINGS", tmp_path)
    q = {"results": "a9-fake", "design": "text"}
    assert [evaluate(q | {"measure": m}) for m in ("runs", "passed", "pass_pct", "ci_low_pct", "ci_high_pct")] \
        == [10, 1, 10, 2, 40]   # Wilson 1 of 10: [1.8 %, 40.4 %]
    assert evaluate({"results": "a9-fake", "measure": "runs"}) == 11
    assert evaluate(q | {"measure": "prompt_tokens"}) == 100 and evaluate(q | {"measure": "seeds"}) == 10
    with pytest.raises(MapError, match="no runs of design 'nope'"):
        evaluate({"results": "a9-fake", "design": "nope", "measure": "runs"})
    with pytest.raises(MapError, match="a results query needs"):
        evaluate({"results": "a9-fake", "measure": "mean"})
    with pytest.raises(MapError, match="no results file"):
        evaluate({"results": "a9-none", "measure": "runs"})
