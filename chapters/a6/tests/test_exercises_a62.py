"""The chapter's checkers: right answers pass, wrong or missing ones get a hint, never a traceback,
and no guess a reader could take from the page (a number it shows, the example in the cell) passes."""
import pytest

from prefixlab.cache.calculator import analyze
from prefixlab.paths import RECORDINGS
from chapters.a6.exercises import a6_2 as exercises
from prefixlab.recording.format import load
from chapters.a6.exercises.tolerance import TOKENS as _TOKENS


def _out(n):
    """The nearest guess outside the checkers' stated tolerance."""
    return _TOKENS + 1



@pytest.fixture(scope="module")
def rec():
    return load(RECORDINGS / "t10-smollm2-llamacpp")  # the book's recording


def _row(rec, session, round_no):
    return next(r for r in analyze(rec, sessions=session) if r.round == round_no)


def test_check_hit(rec):
    row = _row(rec, "refresh-day2", 1)
    assert exercises.check_hit(rec, "refresh-day2", 1, None) == exercises.ASK
    verdict = exercises.check_hit(rec, "refresh-day2", 1, row.measured)
    assert verdict.startswith("对") and "另一个会话" in verdict  # the answer explains the shared cache
    assert exercises.check_hit(rec, "refresh-day2", 1, row.measured + _out(row.measured)).startswith("还不对")
    assert "整数" in exercises.check_hit(rec, "refresh-day2", 1, "many")
    assert "整数" in exercises.check_hit(rec, "refresh-day2", 1, True)


def test_check_hit_never_shows_the_number_before_it_is_right(rec):
    row = _row(rec, "refresh-day2", 1)
    for guess in (0, row.prompt_tokens, row.prompt_tokens - 1):
        verdict = exercises.check_hit(rec, "refresh-day2", 1, guess)
        assert verdict.startswith("还不对") and f"{row.measured:,}" not in verdict and str(row.measured) not in verdict


def test_hit_source_names_the_request_that_left_the_prefix(rec):
    assert exercises.hit_source(rec, _row(rec, "refresh-day1", 1)) is None  # empty cache
    assert exercises.hit_source(rec, _row(rec, "refresh-day1", 3)) == ("refresh-day1", 2)
    session, _ = exercises.hit_source(rec, _row(rec, "frozen-day1", 1))
    assert session != "frozen-day1"  # a new session's first hit comes from another session


def test_second_refresh(rec):
    rows = exercises.two_writes(rec)
    second = next(r for r in rows if r.round == exercises.SECOND_WRITE_ROUND + 1)
    first = next(r for r in rows if r.break_block == "memory_body")
    assert first.round < second.round and second.break_block == "memory_body"
    assert second.read > first.read  # the first note is shared
    assert exercises.check_second_refresh(rec, None) == exercises.ASK
    assert exercises.check_second_refresh(rec, second.read).startswith("对")
    assert exercises.check_second_refresh(rec, second.read - exercises.TOLERANCE).startswith("对")
    # guesses from the page: the first refresh, the whole previous request, nothing
    for guess in (first.read, rows[second.round - 2].prompt_tokens, 0, second.read + exercises.TOLERANCE + 1):
        verdict = exercises.check_second_refresh(rec, guess)
        assert verdict.startswith("还不对") and str(second.read) not in verdict


def test_check_layout_wants_the_best_placement(rec):
    assert exercises.check_layout(rec, None) == exercises.ASK
    assert exercises.check_layout(rec, []).startswith("还不够")  # automatic mode alone reads nothing back
    assert exercises.check_layout(rec, "memory_header").startswith("对")
    assert exercises.check_layout(rec, ["memory_header", "memory_body"]).startswith("对")
    for partial in (["base"], ["agents_md"], ["tool:remember"]):
        assert exercises.check_layout(rec, partial).startswith("还不是最好"), partial


def test_check_layout_accepts_the_names_a_reader_writes(rec):
    for name in ("tools", "tool:*", ["Tools"], ["TOOL:*"]):
        assert exercises.check_layout(rec, name).startswith("还不是最好"), name  # the last tool: valid, not best
    assert exercises.check_layout(rec, ["AGENTS.md"]).startswith("还不是最好")
    assert "没有叫" in exercises.check_layout(rec, ["tool:nope"])


def test_check_layout_names_the_breakpoint_on_changing_content(rec):
    for answer in (["memory_body"], ["system"]):
        assert exercises.check_layout(rec, answer).startswith("常见错误:断点放在了会变的内容上(memory_body)")
    assert "会变的 memory_body 之后" in exercises.check_layout(rec, ["user#1"])


def test_check_layout_refuses_what_the_api_refuses(rec):
    assert "最多再放 3 个" in exercises.check_layout(rec, ["base", "agents_md", "memory_header", "tool:remember"])
