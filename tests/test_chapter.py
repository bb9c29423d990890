"""The A6·2 chapter as a reader sees it: no measured number typed into the prose, and no exercise
whose answer the page already shows before it (in prose, printed output, a glued value or a hover)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from prefixlab.cache.calculator import analyze
from prefixlab.paths import RECORDINGS
from prefixlab.presenting import charts, exercises
from prefixlab.recording.format import load

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
CHAPTER = ROOT / "book" / "a6-2-memory-timing.ipynb"
# A number of three or more digits, or with thousands separators, outside code, glue roles and links.
NUMBER = re.compile(r"(?<![\w.{`/#-])\d{1,3}(?:,\d{3})+(?![\w])|(?<![\w.{`/#-])\d{3,}(?![\w%])")


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell.get("source", ""))


def typed_numbers(markdown: str) -> list[str]:
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)   # code blocks
    text = re.sub(r"\{glue[^}]*\}`[^`]*`", "", text)           # glue roles
    text = re.sub(r"`[^`]*`", "", text)                        # inline code
    text = re.sub(r"\]\([^)]*\)", "]", text)                   # link targets
    text = re.sub(r"^%.*$", "", text, flags=re.M)              # MyST comments
    return [m.group() for m in NUMBER.finditer(text) if not re.fullmatch(r"(19|20)\d\d", m.group())]


def test_the_checker_finds_typed_numbers():
    assert typed_numbers("命中 1,658 个,重算 168 个") == ["1,658", "168"]
    assert typed_numbers("{glue:text}`refresh_cached` 个,`python -m x 8080`,2026 年,A6·2,第 5 轮") == []


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_measured_number_is_typed_into_the_prose(path):
    found = {i: typed_numbers(source(c)) for i, c in enumerate(cells(path)) if c["cell_type"] == "markdown"}
    found = {i: n for i, n in found.items() if n}
    assert not found, f"numbers typed into markdown cells (glue them from data/ instead): {found}"


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
    answer = next(r.measured for r in analyze(rec, sessions="refresh-day2") if r.round == 1)
    assert not shows_number(page_text(before("exercises.check_hit(")), answer)


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
