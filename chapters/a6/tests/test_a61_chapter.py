"""Lesson A6·1 as a reader sees it: its exercises' checkers, and no answer shown before its exercise."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.figures import agents_md_explorer
from chapters.a6.exercises import a6_1 as exercises_a61
from chapters.a6.lab.instruction_files import LoaderLab, RequestLab
from prefixlab.recording.format import load
from chapter_pages import notebook_cells, text_before
from chapters.a6.exercises.tolerance import TOKENS as _TOKENS


def _out(n):
    """The nearest guess outside the checkers' stated tolerance."""
    return _TOKENS + 1


ROOT = Path(__file__).resolve().parents[3]
CHAPTER = ROOT / "book" / "a6" / "a6-1-instruction-files.ipynb"


@pytest.fixture(scope="module")
def rec():
    return load(RECORDINGS / "t11-smollm2-llamacpp")


@pytest.fixture(scope="module")
def explorer():
    return agents_md_explorer.explore()


def cells():
    return notebook_cells(CHAPTER)


def page_before(marker: str) -> str:
    """Everything a reader sees above the first code cell containing ``marker``."""
    return text_before(CHAPTER, marker)


def shows(text: str, n: int) -> bool:
    return any(re.search(rf"(?<![\d,.]){re.escape(form)}(?![\d,])", text) for form in {str(n), f"{n:,}"})


def answer(verdict: str) -> bool:
    return verdict.startswith("对")


def test_checkers_accept_only_the_recorded_answer(rec, explorer):
    from prefixlab.cache import calculator

    rows = calculator.analyze(rec)
    hits = {r.measured for r in rows}
    right = [h for h in hits if answer(exercises_a61.check_compaction_hit(rec, h))]
    assert len(right) == 1
    assert not answer(exercises_a61.check_compaction_hit(rec, right[0] + _out(right[0])))
    edit = [h for h in hits if answer(exercises_a61.check_edit_hit(rec, h))]
    assert len(edit) == 1
    for check in (exercises_a61.check_compaction_hit, exercises_a61.check_edit_hit):
        assert check(rec, None) == exercises_a61.ASK
        assert "整数" in check(rec, "824")


def test_loader_checkers(explorer):
    path = ["AGENTS.md", "services/AGENTS.md", "services/api/AGENTS.md"]
    assert answer(exercises_a61.check_loaded(explorer, "services/api/handlers", path))
    assert "顺序" in exercises_a61.check_loaded(explorer, "services/api/handlers", path[::-1])
    assert not answer(exercises_a61.check_loaded(explorer, "services/api/handlers", path[:1]))
    billing = next(r for r in explorer.rows if r.cwd == "services/billing")
    assert answer(exercises_a61.check_cut(explorer, "services/billing", 1024, billing.cut(1024)))
    assert not answer(exercises_a61.check_cut(explorer, "services/billing", 1024, billing.cut(1024) - 1))


def test_no_exercise_answer_is_on_the_page_before_it(rec, explorer):
    from prefixlab.cache import calculator

    rows = calculator.analyze(rec)
    compaction = next(h for h in {r.measured for r in rows} if answer(exercises_a61.check_compaction_hit(rec, h)))
    edit = next(h for h in {r.measured for r in rows} if answer(exercises_a61.check_edit_hit(rec, h)))
    assert not shows(page_before("check_compaction_hit("), compaction)
    assert not shows(page_before("check_edit_hit("), edit)
    before_loaded = page_before("check_loaded(")
    assert "services/AGENTS.md → services/api/AGENTS.md" not in before_loaded
    billing = next(r for r in explorer.rows if r.cwd == "services/billing")
    assert not shows(page_before("check_cut("), billing.cut(1024))


def test_lab_views(rec):
    lab = RequestLab()
    assert lab.variants() == ["message", "agents", "edit-frozen", "edit-reload"]
    label, seq = lab.requests("agents-day1")[0]
    assert label == "D1·1" and "规矩:在 agents_md 块" in lab.describe("agents-day1", seq)
    loader = LoaderLab()
    assert "截掉" in loader.describe("services/api", 512) and "没有截断" in loader.describe(".")
    loader.write("services/api/handlers/AGENTS.md", "- handlers: one module per resource")
    assert "services/api/handlers/AGENTS.md" in loader.describe("services/api/handlers")
    with pytest.raises(ValueError):
        loader.write("services/README.md", "x")
