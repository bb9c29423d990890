"""The chapter's checkers: right answers pass, wrong or missing ones get a hint, never a traceback."""
import pytest

from prefixlab.cache.calculator import analyze
from prefixlab.presenting import exercises
from prefixlab.recording.format import find_recordings, load


@pytest.fixture(scope="module")
def rec():
    return load(find_recordings()[0])


def test_check_hit(rec):
    right = next(r.measured for r in analyze(rec, sessions="refresh-day1") if r.round == 7)
    assert exercises.check_hit(rec, "refresh-day1", 7, None) == exercises.ASK
    assert exercises.check_hit(rec, "refresh-day1", 7, right).startswith("对")
    assert exercises.check_hit(rec, "refresh-day1", 7, right + 1).startswith("还不对")
    assert "整数" in exercises.check_hit(rec, "refresh-day1", 7, "many")


def test_check_break(rec):
    assert exercises.check_break(rec, 2, 3, "memory_body").startswith("对")
    assert exercises.check_break(rec, 2, 3, "tools").startswith("还不对")


def test_check_layout(rec):
    assert exercises.check_layout(rec, None) == exercises.ASK
    assert exercises.check_layout(rec, []).startswith("还不够")  # automatic mode alone reads nothing back
    assert exercises.check_layout(rec, "memory_header").startswith("对")
    assert "API 会拒绝" in exercises.check_layout(rec, ["base", "agents_md", "memory_header", "tool:remember"])
