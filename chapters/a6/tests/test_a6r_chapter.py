"""Side lesson A6·R as a reader sees it: its exercises' checkers, and no answer shown before its exercise."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.exercises import a6_r as exercises_a6r
from prefixlab.recording.format import load
from chapter_pages import notebook_cells, text_before
from chapters.a6.exercises.tolerance import TOKENS as _TOKENS


def _out(n):
    """The nearest guess outside the checkers' stated tolerance."""
    return _TOKENS + 1


ROOT = Path(__file__).resolve().parents[3]
CHAPTER = ROOT / "book" / "a6" / "a6-r-memory-vs-retrieval.ipynb"
T14 = RECORDINGS / "t14-smollm2-llamacpp"


def answer(verdict: str) -> bool:
    return verdict.startswith("对")


def cells():
    return notebook_cells(CHAPTER)


def page_before(marker: str) -> str:
    """Everything a reader sees above the first code cell containing ``marker``."""
    return text_before(CHAPTER, marker)


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
    for guess in (row.measured + _out(row.measured), row.measured - _out(row.measured), 0, row.prompt_tokens):
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


# -- what the prose says in words (not numbers) must stay true of the shipped data -------------------------

@pytest.fixture(scope="module")
def t14_data():
    from chapters.a6.figures import strategies as sf

    return sf.strategy_data(load(T14), {s: s for s in ("frozen", "select", "retrieve")})


def _turn_reads(points):
    return sum(p.read for a, p in zip(points, points[1:]) if p.turn != a.turn)


def test_prose_claims_about_the_local_server(t14_data):
    from chapters.a6.figures import strategies as sf

    local = {s: sf.totals(p) for s, p in t14_data["local"].items()}
    # "只带相关的,发出去的 token 少了;可服务器要重算的,反而可能更多": frozen sends most, recomputes least
    assert local["frozen"].prompt > max(local["select"].prompt, local["retrieve"].prompt)
    assert local["frozen"].recomputed < local["retrieve"].recomputed < local["select"].recomputed
    # select breaks inside the system prompt at every later user request; retrieve in the conversation
    for a, p in zip(t14_data["local"]["select"], t14_data["local"]["select"][1:]):
        if p.turn != a.turn:
            assert p.break_block == "memory_body"


def test_prose_claims_about_the_cloud_views(t14_data):
    from chapters.a6.figures import strategies as sf

    cost = {(v, s): sf.totals(p).cost for v, per in t14_data.items() for s, p in per.items() if v != "local"}
    # "停顿改变了排名": frozen is the cheapest on the recorded clock and the dearest with the pauses
    assert cost["anthropic", "frozen"] < min(cost["anthropic", "select"], cost["anthropic", "retrieve"])
    assert cost["anthropic-pause", "frozen"] > max(cost["anthropic-pause", "select"], cost["anthropic-pause", "retrieve"])
    for s in ("select", "retrieve"):  # they break at every user request anyway: pausing changes nothing
        assert cost["anthropic-pause", s] == cost["anthropic", s]
    # "在 Anthropic 上,检索组断得晚不管用;在 OpenAI 上,它管用"
    assert _turn_reads(t14_data["anthropic"]["select"]) == _turn_reads(t14_data["anthropic"]["retrieve"]) == 0
    assert _turn_reads(t14_data["openai"]["retrieve"]) > _turn_reads(t14_data["openai"]["select"])
    assert _turn_reads(t14_data["anthropic-pause"]["frozen"]) < _turn_reads(t14_data["anthropic"]["frozen"])


def test_prose_claims_about_the_recall_test():
    from chapters.a6.figures import recall

    by = {(x.strategy, x.k): x for x in recall.summary(recall.measure(ks=range(1, 11)))}
    for k in range(1, 11):  # the same retriever: the two lines coincide; retrieve pays for its header
        assert by["select", k].recall == by["retrieve", k].recall
        assert by["retrieve", k].tokens > by["select", k].tokens
    assert by["frozen", None].recall == 1 and by["frozen", None].tokens > by["select", 10].tokens
