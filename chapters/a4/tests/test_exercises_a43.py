"""Lesson A4·3's exercise checkers: the right answer is accepted, a wrong or missing one gets a hint
without the number, and no output of the page (glued numbers, tables, figures, the map) prints an answer."""
import json
import re

import pytest

from prefixlab.paths import REPO_ROOT
from prefixlab.presenting.answers import ASK
from prefixlab.recording.format import load
from chapters.a4.exercises import a4_3 as exercises
from chapters.a4.paths import A43_RECORDING

PAGE = REPO_ROOT / "book" / "a4" / "a4-3-rewrite-history.ipynb"


@pytest.fixture(scope="module")
def rec():
    return load(A43_RECORDING)


@pytest.fixture(scope="module")
def answers(rec):
    return {"openai": exercises.openai_read(rec)[0], "window": exercises.rewrite_rounds(rec, exercises.SMALLER_WINDOW)[0],
            "ratio": exercises.session_ratio(rec)[0]}


def test_the_exercises_ask_what_the_lesson_says_they_ask(rec, answers):
    read, prompt = exercises.openai_read(rec)
    assert 1024 <= read < prompt and (read - 1024) % 128 == 0
    from miniagent.variants.transcript import RECENT

    assert answers["window"] < exercises.rewrite_rounds(rec, RECENT)[0]  # a smaller window rewrites earlier
    assert answers["ratio"] > 1.5


def test_right_answers_are_accepted_and_wrong_ones_get_a_hint_without_the_number(rec, answers):
    checks = {"openai": lambda g: exercises.check_openai_read(rec, g),
              "window": lambda g: exercises.check_smaller_window(rec, g)}
    for name, check in checks.items():
        value = answers[name]
        assert check(None) == ASK and all(check(v).startswith("答案要写成") for v in ("12", True))
        assert check(value).startswith("对"), name
        for wrong_guess in (value + 1, value - 1):
            wrong = check(wrong_guess)
            assert wrong.startswith("不对"), name
            assert not re.search(rf"(?<![\d,]){value:,}(?![\d,])", wrong)
    ratio = answers["ratio"]
    check = lambda g: exercises.check_session_ratio(rec, g)  # noqa: E731
    assert check(None) == ASK and all(check(v).startswith("答案要写成") for v in ("2", True))
    assert check(round(ratio, 1)).startswith("对") and check(ratio + 0.15).startswith("对")
    assert check(ratio + 0.3).startswith("不对") and f"{ratio:.1f}" not in check(ratio + 0.3)


def test_the_page_prints_no_answer(answers):
    cells = json.loads(PAGE.read_text(encoding="utf-8"))["cells"]
    shown = "\n".join([json.dumps(out, ensure_ascii=False) for cell in cells for out in cell.get("outputs", [])]
                      + ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"])
    value = answers["openai"]
    assert not re.search(rf"(?<![\d,.]){value:,}(?![\d,])", shown) and not re.search(rf"(?<![\d,.]){value}(?![\d,])", shown)
    ratio = f"{answers['ratio']:.1f}"
    assert not re.search(rf"(?<![\d.]){re.escape(ratio)}(?![\d])", shown)
    # exercise 2's answer is a round number (small numbers are everywhere): the page names no round with it
    assert f"第 {answers['window']} 轮第一次" not in shown
