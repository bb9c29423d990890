"""Lesson A4·2's exercise checkers: the right answer is accepted, a wrong or missing one gets a hint
without the number, and no output of the page (glued numbers, tables, the map) prints an answer."""
import json
import re

import pytest

from prefixlab.cache import calculator
from prefixlab.paths import REPO_ROOT
from prefixlab.presenting.answers import ASK
from prefixlab.recording.format import load
from chapters.a4.exercises import a4_2 as exercises
from chapters.a4.figures.volatile_top import ANTHROPIC_MODEL, session_id
from chapters.a4.paths import A42_RECORDING

PAGE = REPO_ROOT / "book" / "a4" / "a4-2-volatile-top.ipynb"


@pytest.fixture(scope="module")
def rec():
    return load(A42_RECORDING)


def measured(rec, shape, day, round_no, rule="llamacpp", **config):
    rows = calculator.analyze(rec, rule, sessions=session_id(shape, day), **config)
    row = next(r for r in rows if r.round == round_no)
    return row.measured if rule == "llamacpp" else row.read


@pytest.fixture(scope="module")
def answers(rec):
    return {"overnight": measured(rec, "date-only", 2, 1),
            "same_minute": measured(rec, *exercises.SAME_MINUTE),
            "anthropic_end": measured(rec, *exercises.ANTHROPIC_END, "anthropic", model=ANTHROPIC_MODEL)}


def test_the_exercises_ask_what_the_lesson_says_they_ask(rec, answers):
    rows = {(r.session, r.round): r for r in calculator.analyze(rec)}
    # exercise 1: overnight, the date changed, the text before the environment block is read back
    assert 1000 < answers["overnight"] < rows[("date-only-day2", 1)].prompt_tokens - 500  # the tools and the task follow
    # exercise 2: round 3 went out in the same minute as round 2, after round 2 edited a file
    day2 = [c for c in rec.session_calls("clock-top-day2")]
    assert "Time: 2026-12-02 10:15 UTC" in day2[1].request["messages"][0]["content"]
    assert "Time: 2026-12-02 10:15 UTC" in day2[2].request["messages"][0]["content"]
    assert 0 < answers["same_minute"] < 200
    # exercise 3: Anthropic reads less than llama.cpp on the same request
    assert answers["anthropic_end"] < measured(rec, *exercises.ANTHROPIC_END)


def test_right_answers_are_accepted_and_wrong_ones_get_a_hint_without_the_number(rec, answers):
    checks = {"overnight": lambda g: exercises.check_overnight(rec, "date-only", g),
              "same_minute": lambda g: exercises.check_same_minute(rec, g),
              "anthropic_end": lambda g: exercises.check_anthropic_end(rec, g)}
    for name, check in checks.items():
        value = answers[name]
        assert check(None) == ASK and all(check(v).startswith("答案要写成") for v in ("12", True))
        assert check(value).startswith("对"), name
        for wrong_guess in (value + 1, max(value - 1, 0) if value else value + 7):
            wrong = check(wrong_guess)
            assert wrong.startswith("不对"), name
            assert not re.search(rf"(?<![\d,]){value:,}(?![\d,])", wrong) or value == 0
    assert "形状只能是" in exercises.check_overnight(rec, "clock-middle", 0)


def test_the_page_prints_no_answer(answers):
    cells = json.loads(PAGE.read_text(encoding="utf-8"))["cells"]
    glued, shown = [], []
    for cell in cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "scrapbook" in out.get("metadata", {}) or "application/papermill.record/text/plain" in data:
                glued.append(str(data.get("application/papermill.record/text/plain", "")).strip("'\""))
            shown.append(json.dumps(out, ensure_ascii=False))
    assert glued, "the page glues its numbers"
    text = "\n".join(shown)
    for name, value in answers.items():
        assert f"{value:,}" not in glued and str(value) not in glued, name
        if value >= 100:  # a small number shows up anywhere (a round, a count); a large one must not
            assert not re.search(rf"(?<![\d,.]){value:,}(?![\d,])", text), name
            assert not re.search(rf"(?<![\d,.]){value}(?![\d,])", text), name
