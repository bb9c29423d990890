"""A3·1's checkers: a missing or wrong answer gets a hint without the answer; the right one is confirmed."""
from chapters.a3.exercises import a3_1 as ex


def test_no_answer_asks_for_one():
    assert ex.check_prefix_hole(None) == ex.ASK == ex.check_env_kept(None) == ex.check_held_seconds(None)


def test_exercise_1():
    assert ex.check_prefix_hole("sibling").startswith("对")
    wrong = ex.check_prefix_hole("dotdot")
    assert wrong.startswith("不对") and "sibling" not in wrong
    assert "可选" in ex.check_prefix_hole("nowhere")


def test_exercise_2():
    assert ex.check_held_seconds(1.0).startswith("对")
    assert ex.check_held_seconds(0).startswith("不对")
    assert "秒数" in ex.check_held_seconds("soon")


def test_exercise_3():
    right = ex.check_env_kept(4)
    assert right.startswith("对:4 个") and "SSH_AUTH_SOCK" in right
    wrong = ex.check_env_kept(5)
    assert wrong.startswith("不对") and "4" not in wrong
    assert "整数" in ex.check_env_kept(True)
