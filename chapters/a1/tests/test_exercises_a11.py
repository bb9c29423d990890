"""A1·1's checkers: right answers are confirmed with the reason, wrong or missing ones get a hint
and never the number."""
import pytest

from prefixlab.presenting.answers import ASK
from prefixlab.recording.format import load
from chapters.a1.exercises import a1_1
from chapters.a1.paths import A1_RECORDING


@pytest.fixture(scope="module")
def rec():
    return load(A1_RECORDING)


def test_messages_in_a_round(rec):
    calls = {c.round: c for c in rec.session_calls("loop")}
    last = max(calls)
    right = len(calls[last].request["messages"])
    assert right == 2 + 2 * (last - 1)
    assert a1_1.check_messages(rec, last, right).startswith("对")
    wrong = a1_1.check_messages(rec, last, right + 1)
    assert wrong.startswith("不对") and str(right) not in wrong
    assert a1_1.check_messages(rec, last, None) == ASK
    assert "之间的整数" in a1_1.check_messages(rec, 99, 3)


def test_growth_of_the_last_round(rec):
    calls = {c.round: c for c in rec.session_calls("loop")}
    last = max(calls)
    right = calls[last].prompt_tokens - calls[last - 1].prompt_tokens
    assert a1_1.check_last_round_growth(rec, right).startswith("对")
    wrong = a1_1.check_last_round_growth(rec, right - 1)
    assert wrong.startswith("不对") and str(right) not in wrong
    assert a1_1.check_last_round_growth(rec, "12") == ASK
