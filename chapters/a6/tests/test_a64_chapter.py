"""Lesson A6·4 as a reader sees it: its exercises' checkers on the T13 recordings, no answer shown
before its exercise, and the lab's text views."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.exercises import a6_4 as exercises_a64
from chapters.a6.figures import session_tree as st
from prefixlab.recording.format import load
from chapter_pages import notebook_cells, text_before
from chapters.a6.exercises.tolerance import TOKENS as _TOKENS


def _out(n):
    """The nearest guess outside the checkers' stated tolerance."""
    return _TOKENS + 1


ROOT = Path(__file__).resolve().parents[3]
CHAPTER = ROOT / "book" / "a6" / "a6-4-session-tree.ipynb"
FORKS = RECORDINGS / "t13-forks-smollm2-llamacpp"
SETUPS = {"one-slot": "一个槽位,没有主机缓存", "host-cache": "一个槽位,有主机缓存",
          "two-slots": "两个槽位,按相似度挑", "two-slots-lru": "两个槽位,挑最久没用的"}



@pytest.fixture(scope="module")
def forks():
    return load(FORKS)


@pytest.fixture(scope="module")
def tree(forks):
    return st.session_tree(forks, "day1.jsonl")


@pytest.fixture(scope="module")
def setups():
    found = {r.manifest["setup"]: r for r in (load(p) for p in sorted(RECORDINGS.glob("t13-switch-*")))}
    return {SETUPS[k]: st.switch_rows(found[k]) for k in SETUPS if k in found}


def cells():
    return notebook_cells(CHAPTER)


def page_before(marker: str) -> str:
    """Everything a reader sees above the first code cell containing ``marker``."""
    return text_before(CHAPTER, marker)


def shows(text: str, n: int) -> bool:
    return any(re.search(rf"(?<![\d,.]){re.escape(form)}(?![\d,])", text) for form in {str(n), f"{n:,}"})


def right(verdict: str) -> bool:
    return verdict.startswith("对")


def returns(rows):
    """(request, its branch's previous request) for each request that follows one of another branch."""
    out, last = [], {}
    for i, r in enumerate(rows):
        if i and rows[i - 1].session != r.session and r.session in last:
            out.append((r, last[r.session]))
        last[r.session] = r
    return out


def test_checkers_accept_only_the_recorded_answer(forks, tree, setups):
    lost = len(exercises_a64.truncated(tree, "fork-r7"))
    assert right(exercises_a64.check_lost(tree, "fork-r7", lost))
    assert not right(exercises_a64.check_lost(tree, "fork-r7", lost + 1))
    hit = forks.session_calls("fork-r5")[0].cached_tokens
    assert right(exercises_a64.check_fork_hit(forks, "fork-r5", hit))
    assert not right(exercises_a64.check_fork_hit(forks, "fork-r5", hit - _out(hit)))
    # the right answers from the recordings, without the checker's helpers
    first = returns(setups[SETUPS["one-slot"]])[0][0]
    assert right(exercises_a64.check_switch_hit(setups, SETUPS["one-slot"], first.measured))
    assert not right(exercises_a64.check_switch_hit(setups, SETUPS["one-slot"], first.prompt_tokens))
    # a setup counts when every request that returns to a branch reads at least its previous prompt
    whole = [label for label, rows in setups.items()
             if returns(rows) and all((r.measured or 0) >= prev.prompt_tokens for r, prev in returns(rows))]
    assert whole == [SETUPS["two-slots-lru"]]     # what the page's prose says too
    assert right(exercises_a64.check_full_reuse(setups, whole))
    for wrong in ([SETUPS["two-slots-lru"], SETUPS["host-cache"]], [SETUPS["two-slots"]], []):
        assert not right(exercises_a64.check_full_reuse(setups, wrong))


def test_truncation_agrees_with_the_map_query(tree):
    from prefixlab.presenting.evolution import evaluate

    value = evaluate({"recording": FORKS.name, "session": "fork-r7", "at": "first", "measure": "truncated_entries"})
    assert value == len(exercises_a64.truncated(tree, "fork-r7"))
    from chapters.a6.figures.rewind import rewind

    assert rewind(load(FORKS), "day1", 3).lost_entries == value  # the lesson's naive design, measured


def test_no_exercise_answer_is_on_the_page_before_it(forks, tree, setups):
    assert not shows(page_before("check_lost("), len(exercises_a64.truncated(tree, "fork-r7")))
    assert not shows(page_before("check_fork_hit("), forks.session_calls("fork-r5")[0].cached_tokens)
    row, _ = exercises_a64.switch_backs(setups[SETUPS["one-slot"]])[0]
    assert not shows(page_before("check_switch_hit("), row.measured)
    before = page_before("check_full_reuse(")
    assert "次整段读取" not in before  # the per-setup results come after the exercise
