"""The A6·2 chapter as a reader sees it: no exercise whose answer the page already shows before it
(in prose, printed output, a glued value or a hover). No typed numbers: tests/test_typed_numbers.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prefixlab.cache.calculator import analyze
from prefixlab.paths import RECORDINGS, REPO_ROOT
from prefixlab.recording.format import load

from chapters.a6.exercises import a6_2 as exercises
from chapters.a6.exercises.tolerance import TOKENS
from chapters.a6.figures import memory_timing as charts

CHAPTER = REPO_ROOT / "book" / "a6" / "a6-2-memory-timing.ipynb"


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell.get("source", ""))


def page_text(upto: list[dict]) -> str:
    """Everything a reader can see in these cells: prose, printed and displayed output of every kind
    (the plotly JSON holds the hover texts), glued values."""
    parts = []
    for cell in upto:
        parts.append(source(cell) if cell["cell_type"] == "markdown" else "")
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for value in out.get("data", {}).values():
                parts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                             if not isinstance(value, list) else "".join(value))
    return "\n".join(parts)


def before(marker: str) -> list[dict]:
    all_cells = cells(CHAPTER)
    index = next(i for i, c in enumerate(all_cells) if c["cell_type"] == "code" and marker in source(c))
    return all_cells[:index]


def shows_number(text: str, n: int) -> bool:
    return any(re.search(rf"(?<![\d,.]){re.escape(form)}(?![\d,])", text) for form in {str(n), f"{n:,}"})


@pytest.fixture(scope="module")
def rec():
    return load(RECORDINGS / "t10-smollm2-llamacpp")  # the book's recording


def test_exercise_1_answer_is_not_on_the_page_before_it(rec):
    # the server's cached_tokens of round 1 of refresh-day2, read from the recording (not the calculator)
    (call,) = [c for c in rec.session_calls("refresh-day2") if c.round == 1 and c.kind == "model_call"]
    answer = call.cached_tokens
    assert answer == next(r.measured for r in analyze(rec, sessions="refresh-day2") if r.round == 1)
    assert exercises.check_hit(rec, "refresh-day2", 1, answer).startswith("对")
    text = page_text(before("exercises.check_hit("))
    # nothing in the band the checker accepts is on the page either
    for near in range(answer - TOKENS, answer + TOKENS + 1):
        assert not shows_number(text, near), near


def test_exercise_2_answer_is_not_on_the_page_before_it(rec):
    rows = exercises.two_writes(rec)
    answer = next(r.read for r in rows if r.round == exercises.SECOND_WRITE_ROUND + 1)
    text = page_text(before("exercises.check_second_refresh("))
    for near in range(answer - exercises.TOLERANCE, answer + exercises.TOLERANCE + 1):
        assert not shows_number(text, near), near


def test_exercise_3_answer_is_not_on_the_page_before_it():
    text = page_text(before("exercises.check_layout("))
    explicit = [label for label, _, config in charts.RULE_OPTIONS if "breakpoints" in config]
    assert explicit and not any(label in text for label in explicit), "the figure menu shows the explicit breakpoint"
    assert '"memory_header"' not in text and "breakpoints=" not in text


def test_exercise_examples_are_not_answers(rec):
    for cell in cells(CHAPTER):
        text = source(cell)
        if "exercises.check_layout(" in text:
            example = re.search(r"例如 (\[.*?\])", text).group(1)
            assert not exercises.check_layout(rec, json.loads(example)).startswith("对")
