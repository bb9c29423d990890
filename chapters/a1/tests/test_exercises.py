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
    assert a1_1.check_last_round_growth(rec, None) == ASK
    for typed in ("12", 12.0):  # answered, but not as a whole number: say so, not "answer first"
        assert "写成整数" in a1_1.check_last_round_growth(rec, typed)
        assert "写成整数" in a1_1.check_messages(rec, 2, typed)


def test_a12_cached_and_evaluated(rec):
    from chapters.a1.exercises import a1_2

    calls = {c.round: c for c in rec.session_calls("long")}
    assert a1_2.check_cached(rec, 12, calls[11].prompt_tokens).startswith("对")
    wrong = a1_2.check_cached(rec, 12, calls[12].prompt_tokens)
    assert wrong.startswith("不对") and str(calls[11].prompt_tokens) not in wrong
    right = calls[20].prompt_tokens - calls[10].prompt_tokens
    assert a1_2.check_evaluated_between(rec, 11, 20, right).startswith("对")
    assert a1_2.check_evaluated_between(rec, 11, 20, right + 5).startswith("不对")
    assert a1_2.check_evaluated_between(rec, 11, 20, None) == ASK
    assert "整数" in a1_2.check_cached(rec, 1, 0) and "不晚于" in a1_2.check_evaluated_between(rec, 12, 11, 0)


def test_a13_budget_and_first_limit(rec):
    from chapters.a1.exercises import a1_3

    n = len(rec.session_calls("runaway-budget"))
    assert a1_3.check_budget_requests(rec, n).startswith("对")
    assert a1_3.check_budget_requests(rec, n + 1).startswith("不对")
    assert a1_3.first_limit(rec) == "max_tokens"  # the budget stops the run before the eighth round
    assert a1_3.check_first_limit(rec, "max_tokens").startswith("对")
    assert a1_3.check_first_limit(rec, "max_rounds").startswith("不对")
    assert a1_3.check_first_limit(rec, None) == ASK and "字符串" in a1_3.check_first_limit(rec, 3)


def test_cut_off_rounds_of_the_live_run():
    from chapters.a1.exercises import a1_l
    from prefixlab.paths import RECORDINGS

    live = load(RECORDINGS / "a1-live-qwen2.5-coder-0.5b-llamacpp")
    calls = live.session_calls(a1_l.SESSION)
    right = sum(c.response["choices"][0]["finish_reason"] == "length" for c in calls)
    assert right > 0
    verdict = a1_l.check_cut_off_rounds(live, right)
    assert verdict.startswith("对") and str(calls[0].request["max_tokens"]) in verdict
    wrong = a1_l.check_cut_off_rounds(live, right + 1)
    assert wrong.startswith("不对") and str(right) not in wrong
    assert a1_l.check_cut_off_rounds(live, None) == ASK
    assert "写成整数" in a1_l.check_cut_off_rounds(live, "4")
