"""A3·2's checkers: a missing or wrong answer gets a hint without the answer; the right one is confirmed."""
import pytest

from prefixlab.recording.format import load

from chapters.a3.approvals import after_refusal
from chapters.a3.exercises import a3_2 as ex
from chapters.a3.paths import A32_RECORDING


@pytest.fixture(scope="module")
def rec():
    return load(A32_RECORDING)


def test_exercise_1(rec):
    row = after_refusal(rec, "ask-deny")
    fresh = row.prompt - row.read
    assert ex.check_fresh_after_denial(rec, None) == ex.ASK
    assert ex.check_fresh_after_denial(rec, fresh).startswith("对")
    wrong = ex.check_fresh_after_denial(rec, fresh + 1)
    assert wrong.startswith("不对") and str(fresh) not in wrong
    assert "整数" in ex.check_fresh_after_denial(rec, "many")


def test_exercise_2():
    assert ex.questions_under(("run_command: python tools/check.py",)) == ["edit_file"]  # the allow-list session
    assert ex.check_asked_with(3).startswith("对:3 次")
    assert ex.check_asked_with(1).startswith("不对")


def test_exercise_3():
    assert ex.check_rule_count(2).startswith("对:2 条")
    assert ex.check_rule_count(1).startswith("不对")
