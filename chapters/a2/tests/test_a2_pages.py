"""Chapter A2's pages: every exercise checker accepts the right answer and hints without it; nothing a
reader sees before an exercise prints its answer."""
import sys
from pathlib import Path

import pytest

from chapters.a2.exercises import a2_1, a2_2, a2_3, a2_5
from chapters.a2.figures import shapes
from chapters.a2.figures.tool_sets import projection
from prefixlab.presenting.answers import ASK

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from chapter_pages import text_before  # noqa: E402

BOOK = Path(__file__).resolve().parents[3] / "book" / "a2"

REC = shapes.retry_recording()
FIFTEEN = projection()["sets"]["fifteen"]

ANSWERS = {
    "a2-1-call-shapes.ipynb": [
        ("check_retry_cached", lambda g: a2_1.check_retry_cached(REC, g), a2_1.retry_call(REC).cached_tokens, 0),
        ("check_fifth_tool", a2_1.check_fifth_tool, a2_1.fifth_tool_tokens(), 0)],
    "a2-2-how-many-tools.ipynb": [
        ("check_twenty_round_share", a2_2.check_twenty_round_share, FIFTEEN["share_percent"], 3),
        ("check_cached_block_cost", a2_2.check_cached_block_cost, FIFTEEN["cost"]["cached"], 0.1)],
    "a2-3-big-outputs-and-edits.ipynb": [
        ("check_pages_to_line", a2_3.check_pages_to_line, a2_3.pages_to_needle(), 0),
        ("check_pages_tokens", a2_3.check_pages_tokens, a2_3.pages_tokens(), 0.1)],
    "a2-5-constrained-calls.ipynb": [
        ("check_second_read", a2_5.check_second_read, a2_5.second_read()[0], 0)],
}


@pytest.mark.parametrize("page", list(ANSWERS))
def test_checkers_accept_the_answer_and_hint_without_it(page):
    for _, check, answer, tolerance in ANSWERS[page]:
        assert check(None) == ASK
        assert check(answer).startswith("对")
        wrong = check(answer * 2 + 7)
        assert wrong.startswith("不对") and f"{answer:,}" not in wrong and str(answer) not in wrong
        assert check(True) == ASK


@pytest.mark.parametrize("page", list(ANSWERS))
def test_nothing_before_an_exercise_prints_its_answer(page):
    for name, _, answer, _ in ANSWERS[page]:
        seen = text_before(BOOK / page, name)
        if isinstance(answer, float):
            assert f"{answer:.4f}" not in seen, (page, name)
        elif answer >= 100:
            assert f"{answer:,}" not in seen and str(answer) not in seen, (page, name)


@pytest.mark.parametrize("check, right, wrong", [
    (a2_5.check_required_prose, "c", ("a", "b")),
    (a2_5.check_final_answer, "keeps_calling", ("answers",)),
])
def test_a2_5_choice_checkers(check, right, wrong):
    assert check(right).startswith("对")
    for answer in wrong:
        assert check(answer).startswith("不对")
    assert "再运行" in check(None) and "再运行" in check(True)


def test_a2_5_second_read_is_predicted():
    measured, predicted = a2_5.second_read()
    assert measured == predicted > 0
