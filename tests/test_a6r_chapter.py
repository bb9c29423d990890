"""Side lesson A6·R as a reader sees it: its exercises' checkers, and no answer shown before its exercise."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import exercises_a6r
from prefixlab.recording.format import load

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "book" / "a6-r-memory-vs-retrieval.ipynb"
T14 = RECORDINGS / "t14-smollm2-llamacpp"


def answer(verdict: str) -> bool:
    return verdict.startswith("对")


def cells():
    return json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]


def page_before(marker: str) -> str:
    """Everything a reader sees above the first code cell containing ``marker``."""
    parts = []
    for cell in cells():
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and marker in source:
            return "\n".join(parts)
        if cell["cell_type"] == "markdown":
            parts.append(source)
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for value in out.get("data", {}).values():
                parts.append(value if isinstance(value, str) else "".join(value) if isinstance(value, list)
                             else json.dumps(value, ensure_ascii=False))
    raise AssertionError(f"no code cell with {marker!r}")


def shows(text: str, n: int) -> bool:
    return any(re.search(rf"(?<![\d,.]){re.escape(form)}(?![\d,])", text) for form in {str(n), f"{n:,}"})


def test_never_complete_checker():
    right = exercises_a6r.never_complete()
    assert right and "run-checks" not in right  # T14's first request finds its one note
    assert answer(exercises_a6r.check_never_complete(right))
    assert answer(exercises_a6r.check_never_complete(list(reversed(right))))  # order does not matter
    assert exercises_a6r.check_never_complete(None) == exercises_a6r.ASK
    assert "列表" in exercises_a6r.check_never_complete("numpy")
    assert "没有叫" in exercises_a6r.check_never_complete(["nope"])
    wrong = exercises_a6r.check_never_complete(right[:1])
    assert wrong.startswith("不对") and "漏了" in wrong and right[1] not in wrong
    assert "多选了" in exercises_a6r.check_never_complete([*right, "run-checks"])


@pytest.mark.parametrize("strategy", ["select", "retrieve"])
def test_turn_hit_checker_accepts_only_the_measurement(strategy):
    rec = load(T14)
    call, row = exercises_a6r.turn_start(rec, strategy)
    assert row.read == row.measured
    assert answer(exercises_a6r.check_turn_hit(rec, strategy, row.measured))
    for guess in (row.measured + 1, row.measured - 1, 0, row.prompt_tokens):
        verdict = exercises_a6r.check_turn_hit(rec, strategy, guess)
        assert verdict.startswith("不对") and not shows(verdict, row.measured)
    assert exercises_a6r.check_turn_hit(rec, strategy, None) == exercises_a6r.ASK
    assert "整数" in exercises_a6r.check_turn_hit(rec, strategy, "12")


def test_no_exercise_answer_is_on_the_page_before_it():
    rec = load(T14)
    for strategy in ("select", "retrieve"):
        _, row = exercises_a6r.turn_start(rec, strategy)
        assert not shows(page_before(f'check_turn_hit(rec, "{strategy}"'), row.measured), strategy
    before = page_before("check_never_complete(")
    for task in exercises_a6r.never_complete():
        # the recall results per request come after the exercise: no "never complete" verdict before it
        assert f"{task}(缺" not in before
