"""Side lesson A6·R's per-request table over the shipped T14 recording (prefixlab/presenting/strategies.py)."""
import pytest

from prefixlab.cache import calculator
from prefixlab.presenting import strategies


@pytest.fixture(scope="module")
def rows():
    return strategies.per_request()


def test_one_row_per_request_with_turns_and_the_measured_counts(rows):
    rec = calculator.prepare(strategies.T14).recording
    assert [r.seq for r in rows] == [c.seq for c in rec.calls]
    assert [(r.prompt, r.cached) for r in rows] == [(c.prompt_tokens, c.cached_tokens) for c in rec.calls]
    for strategy in ("frozen", "select", "retrieve"):
        mine = [r for r in rows if r.strategy == strategy]
        assert [r.turn for r in mine if r.round == 1] == [1, 2, 3, 4]


def test_memory_tokens_frozen_carries_the_whole_file_the_others_a_few_notes(rows):
    frozen = {r.memory for r in rows if r.strategy == "frozen"}
    assert len(frozen) == 1
    for strategy in ("select", "retrieve"):
        mine = [r for r in rows if r.strategy == strategy]
        assert all(0 < r.memory < min(frozen) for r in mine)
        by_turn = {}
        for r in mine:
            by_turn.setdefault(r.turn, set()).add(r.memory)
        assert all(len(v) == 1 for v in by_turn.values())  # fixed within a request


def test_totals_add_up(rows):
    for t in strategies.totals(rows):
        mine = [r for r in rows if r.strategy == t.strategy]
        assert t.requests == len(mine) and t.recomputed == t.prompt - t.cached
        assert t.anthropic == sum(r.anthropic for r in mine) and t.openai == sum(r.openai for r in mine)
    frozen = next(t for t in strategies.totals(rows) if t.strategy == "frozen")
    # nothing in frozen's prefix changes: the server computes each token once
    assert frozen.recomputed == [r for r in rows if r.strategy == "frozen"][-1].prompt
