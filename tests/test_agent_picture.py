"""The agent picture (从已有出发): its data file, the order it lights, the view, and every lesson showing it."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import nbformat
import pytest

from prefixlab.paths import AGENT_PICTURE, REPO_ROOT, TOC
from prefixlab.presenting.agent_picture import (BUILT, CURRENT, HERE, LATER, PictureError, agent_picture,
                                                load_picture, picture_view, toc_pages)

LESSON_STEM = re.compile(r"a\d-(\d+|r)-")  # a lesson notebook (a6-2-memory-timing), not a chapter page
PICTURE = load_picture()
IDS = [l.id for l in PICTURE.lessons]


def lesson_notebooks() -> dict[str, Path]:
    """Stem -> path of every lesson notebook on disk, wherever under book/ it lives."""
    return {p.stem: p for p in (REPO_ROOT / "book").rglob("*.ipynb")
            if LESSON_STEM.match(p.stem) and ".ipynb_checkpoints" not in p.parts}


def course_key(lesson_id: str) -> tuple[int, float]:
    chapter, number = re.fullmatch(r"a(\d)-(\d+|r)", lesson_id).groups()
    return int(chapter), 4.5 if number == "r" else int(number)  # A6·R is read right after A6·4


# -- the data file ---------------------------------------------------------------------------------

def test_the_lessons_run_a1_to_a9_in_course_order():
    assert all(re.fullmatch(r"a[1-9]-(\d+|r)", i) for i in IDS), IDS
    assert IDS == sorted(IDS, key=course_key)
    assert IDS[0] == "a1-1" and IDS[-1] == "a9-3"
    assert {i.split("-")[0] for i in IDS} == {f"a{n}" for n in range(1, 10)}
    assert IDS.index("a6-r") == IDS.index("a6-4") + 1


def test_every_lesson_id_in_the_file_is_a_known_lesson():
    known = set(IDS)
    assert {p.lesson for p in PICTURE.parts} <= known
    parts = {p.id for p in PICTURE.parts}
    assert {f for l in PICTURE.lessons for f in l.focus} <= parts


def test_written_lessons_match_the_table_of_contents_by_stem():
    pages = toc_pages()
    stems = {l.stem for l in PICTURE.lessons if l.stem}
    assert stems <= set(pages), f"lessons with a stem but no page in _toc.yml: {sorted(stems - set(pages))}"
    toc_lessons = {s for s in pages if LESSON_STEM.match(s)}
    assert toc_lessons <= stems, f"lesson pages in _toc.yml missing from {AGENT_PICTURE.name}: {sorted(toc_lessons - stems)}"
    for lesson in PICTURE.lessons:  # the stem names its own lesson: a6-2-... belongs to a6-2
        if lesson.stem:
            assert lesson.stem.startswith(lesson.id + "-"), lesson


def test_the_request_keeps_miniagents_block_order():
    request = [p.id for p in PICTURE.parts if p.zone == "request"]
    system = ["base", "skills_index", "agents_md", "memory_block", "tool_defs"]
    assert [p for p in request if p in system] == system  # SystemPrompt.blocks() default, then the tool block
    assert request.index("tool_defs") < request.index("task") < request.index("history") < request.index("tool_results")


# -- what the picture lights -----------------------------------------------------------------------

def states(lesson_id: str) -> dict[str, str]:
    return {v.part.id: v.state for v in picture_view(lesson_id).parts}


def test_a6_3_lights_a6_1_and_a6_2_but_not_a6_4():
    s = states("a6-3")
    assert s["agents_md"] == BUILT                                  # A6·1
    assert s["memory_block"] == s["memory_file"] == BUILT           # A6·2
    assert s["skills_index"] == CURRENT                             # A6·3 itself
    assert s["session_tree"] == LATER                               # A6·4
    assert s["recalled_notes"] == LATER                             # A6·R, read after A6·4
    assert s["task"] == s["history"] == BUILT                       # A1 comes before A6


def test_the_side_lesson_comes_after_a6_4_and_before_a7():
    s = states("a6-r")
    assert s["session_tree"] == BUILT and s["recalled_notes"] == CURRENT and s["child_agent"] == LATER


def test_every_lesson_marks_something_and_lights_only_what_came_before():
    for n, lesson in enumerate(PICTURE.lessons):
        s = states(lesson.id)
        assert CURRENT in s.values(), lesson.id
        for part in PICTURE.parts:
            before = IDS.index(part.lesson) < n
            if part.lesson == lesson.id or part.id in lesson.focus:
                assert s[part.id] == CURRENT
            else:
                assert s[part.id] == (BUILT if before else LATER), (lesson.id, part.id)


def test_a_focus_marks_an_earlier_part_again():
    assert states("a5-3")["summary"] == CURRENT
    assert states("a5-4")["tool_results"] == BUILT


@pytest.mark.parametrize("lesson_id", IDS)
def test_the_picture_renders_for_every_lesson(lesson_id):
    view = agent_picture(lesson_id)
    text, page = repr(view), view._repr_html_()
    label = PICTURE.lesson(lesson_id).label
    assert text.splitlines()[0].startswith("从已有出发") and label in text.splitlines()[0]
    assert "★" in text and repr(view) == text  # stable for nbval
    assert page.count('<button type="button" class="pp-part') == len(PICTURE.parts)
    assert page.count(f'<span class="pp-badge">{HERE}</span>') == sum(1 for v in view.parts if v.state == CURRENT)
    assert "<details" in page  # the text version for readers without JavaScript
    assert "src=" not in page and "http" not in page  # no external script, no network
    for v in view.parts:  # every lit part carries its question, for the click and for the text version
        if v.state != LATER:
            assert page.count(v.part.answers) == 2 and v.part.answers in text


def test_links_follow_the_table_of_contents_wherever_a_notebook_lives(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text(textwrap.dedent("""\
        root: book/index
        parts:
          - chapters:
              - file: book/a6/index
                sections:
                  - file: book/a6/a6-1-instruction-files
                  - file: book/a6/a6-2-memory-timing.ipynb
    """), encoding="utf-8")
    view = picture_view("a6-2", toc=toc)
    hrefs = {v.part.id: v.href for v in view.parts}
    assert hrefs["agents_md"] == "a6-1-instruction-files.html"
    assert hrefs["memory_block"] == "a6-2-memory-timing.html"
    assert hrefs["task"] is None and hrefs["skills_index"] is None  # not in this table of contents
    assert "(未上线)" in repr(view).splitlines()[2]  # the base prompt's lesson A1·1 is not written
    assert 'href="a6-1-instruction-files.html"' in view._repr_html_()
    from_a1 = picture_view("a1-1", toc=toc)  # a lesson not written yet links from book/
    assert {v.part.id: v.href for v in from_a1.parts}["agents_md"] == "a6/a6-1-instruction-files.html"


# -- bad data files --------------------------------------------------------------------------------

GOOD = """\
lessons:
  - {id: a1-1, label: "A1·1", title: "一", stem: null}
  - {id: a1-2, label: "A1·2", title: "二", stem: null, focus: [p1]}
zones:
  - {id: z, title: "区", note: "说明"}
parts:
  - {id: p1, zone: z, label: "环节", lesson: a1-1, answers: "问什么?"}
"""


@pytest.mark.parametrize("change, message", [
    (("lesson: a1-1, answers", "lesson: a9-9, answers"), "unknown lesson 'a9-9'"),
    (("zone: z, label", "zone: q, label"), "unknown zone 'q'"),
    (("focus: [p1]", "focus: [p2]"), "unknown part 'p2'"),
    (("focus: [p1]", "focus: []"), "adds no part and has no focus"),
    (("id: a1-2", "id: a1-1"), "lesson id 'a1-1' is used twice"),
    (('answers: "问什么?"', 'answers: ""'), "'answers' is missing or empty"),
    (("stem: null}\n  - {id: a1-2", "stem: book/a1-1-loop}\n  - {id: a1-2"), "without folder or extension"),
])
def test_a_wrong_data_file_is_refused_with_a_clear_message(tmp_path, change, message):
    path = tmp_path / "picture.yml"
    path.write_text(GOOD.replace(*change), encoding="utf-8")
    with pytest.raises(PictureError, match=re.escape(message)):
        load_picture(path)


def test_a_focus_on_a_part_from_a_later_lesson_is_refused(tmp_path):
    path = tmp_path / "picture.yml"
    path.write_text(GOOD.replace("lesson: a1-1, answers", "lesson: a1-2, answers")
                    .replace("stem: null}\n  - {id: a1-2", "stem: null, focus: [p1]}\n  - {id: a1-2"), encoding="utf-8")
    with pytest.raises(PictureError, match="which only 'a1-2' adds"):
        load_picture(path)


def test_an_unknown_lesson_is_refused():
    with pytest.raises(PictureError, match="no lesson 'a6-9'"):
        agent_picture("a6-9")


# -- every lesson opens with it --------------------------------------------------------------------

def test_every_lesson_notebook_is_in_the_data_file():
    stems = {l.stem for l in PICTURE.lessons if l.stem}
    on_disk = lesson_notebooks()
    assert on_disk, "no lesson notebook found under book/"
    assert set(on_disk) <= stems, f"lesson notebooks missing from {AGENT_PICTURE.name}: {sorted(set(on_disk) - stems)}"


@pytest.mark.parametrize("lesson", [l for l in PICTURE.lessons if l.stem], ids=lambda l: l.id)
def test_every_written_lesson_opens_with_its_picture(lesson):
    path = lesson_notebooks().get(lesson.stem)
    assert path is not None, f"{lesson.id}: no notebook {lesson.stem}.ipynb under book/"
    cells = nbformat.read(path, as_version=4).cells
    call = f'agent_picture("{lesson.id}")'
    index = next((i for i, c in enumerate(cells) if c.cell_type == "code" and call in c.source), None)
    assert index is not None, f"{path.name}: no cell calls {call}"
    first_section = next((i for i, c in enumerate(cells) if i > 0 and c.cell_type == "markdown"
                          and re.search(r"^## ", c.source, re.M)), len(cells))
    # book/STYLE.md: the measured answer comes first (the first screen), the picture right after it.
    after_answer = (first_section < len(cells) and cells[first_section].source.startswith("## 先说答案")
                    and index <= first_section + 2)
    assert index < first_section or index <= 4 or after_answer, f"{path.name}: the picture comes too late (cell {index})"
    assert "hide-input" in cells[index].metadata.get("tags", []) or "remove-input" in cells[index].metadata.get("tags", [])
    # The stored output is the picture as the data file draws it now (nbval re-checks it by running).
    stored = "".join(o["data"]["text/plain"] for o in cells[index].outputs if "data" in o)
    assert stored == repr(agent_picture(lesson.id)), (
        f"{path.name}: the stored picture is stale; run: python scripts/agent_picture_cells.py {lesson.id}")


def test_the_paths_point_at_real_files():
    assert AGENT_PICTURE.is_file() and TOC.is_file()
