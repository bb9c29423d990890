"""Lesson A6·3 as a reader sees it: its exercises' checkers, and no answer shown before its exercise."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.exercises import a6_3 as ex
from chapters.a6.figures import skills as sf
from prefixlab.recording.format import load
from chapter_pages import notebook_cells, text_before
from chapters.a6.exercises.tolerance import TOKENS as _TOKENS


def _out(n):
    """The nearest guess outside the checkers' stated tolerance."""
    return _TOKENS + 1


ROOT = Path(__file__).resolve().parents[3]
CHAPTER = ROOT / "book" / "a6" / "a6-3-skills.ipynb"
T12 = RECORDINGS / "t12-smollm2-llamacpp"
EXERCISE_CAP = sf.CITED_CAPS["spec"][0]  # the cap exercise 3 asks about (pi keeps descriptions up to the spec's maximum)


@pytest.fixture(scope="module")
def manifest():
    return sf.load_manifest()


@pytest.fixture(scope="module")
def rec():
    return load(T12)


def cells():
    return notebook_cells(CHAPTER)


def page_before(marker: str) -> str:
    """Everything a reader sees above the first code cell containing ``marker``."""
    return text_before(CHAPTER, marker)


def shows(text: str, n: int) -> bool:
    """n written as a number: not inside a longer number, nor inside a word such as a commit hash
    (a citation card's permalink holds hex digits; CJK text around a number still counts)."""
    return any(re.search(rf"(?<![0-9A-Za-z,.]){re.escape(form)}(?![0-9A-Za-z,])", text) for form in {str(n), f"{n:,}"})


def answer(verdict: str) -> bool:
    return verdict.startswith("对")


def test_index_checker_takes_estimates_within_tolerance(manifest):
    exact = ex.index_tokens(manifest, EXERCISE_CAP)
    assert exact > ex.index_tokens(manifest, 60) == manifest.index_total - manifest.header_tokens
    assert answer(ex.check_index_tokens(manifest, EXERCISE_CAP, exact))
    assert answer(ex.check_index_tokens(manifest, EXERCISE_CAP, int(exact * 1.04)))
    assert not answer(ex.check_index_tokens(manifest, EXERCISE_CAP, int(exact * 1.06)))
    assert ex.check_index_tokens(manifest, EXERCISE_CAP, None) == ex.ASK
    assert "整数" in ex.check_index_tokens(manifest, EXERCISE_CAP, "100")


def test_recording_checkers_accept_only_the_recorded_answer(rec, manifest):
    n = len(ex.inlined_skills(rec))
    assert n > 0
    assert answer(ex.check_fit(rec, manifest, n)) and not answer(ex.check_fit(rec, manifest, n + 1))
    view = sf.break_view(rec, "added-volatile-day1", "v")
    assert answer(ex.check_added_hit(rec, view.cached)) and not answer(ex.check_added_hit(rec, view.cached - _out(view.cached)))
    for check in (lambda g: ex.check_fit(rec, manifest, g), lambda g: ex.check_added_hit(rec, g)):
        assert check(None) == ex.ASK and "整数" in check("3")


def test_no_exercise_answer_is_on_the_page_before_it(rec, manifest):
    # a count of skills is a small number (the title "A6·3" holds digits too): look for it as a count, "N 份"
    n = len(ex.inlined_skills(rec))
    assert not re.search(rf"(?<![\d,.]){n}\s*份", page_before("check_fit("))
    assert not shows(page_before("check_added_hit("), sf.break_view(rec, "added-volatile-day1", "v").cached)
    assert not shows(page_before("check_index_tokens("), ex.index_tokens(manifest, EXERCISE_CAP))
