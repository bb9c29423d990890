"""Side lesson A6·R's per-request data over the shipped T14 recording (chapters/a6/figures/strategies.py)."""
import pytest

from prefixlab.cache import calculator
from prefixlab.paths import RECORDINGS
from chapters.a6.figures import strategies as sf

T14 = RECORDINGS / "t14-smollm2-llamacpp"
STRATEGIES = ("frozen", "select", "retrieve")


@pytest.fixture(scope="module")
def data():
    rec = calculator.prepare(T14).recording
    return rec, sf.strategy_data(rec, {s: s for s in STRATEGIES})


def test_one_point_per_request_with_turns_and_the_measured_counts(data):
    rec, by_view = data
    local = by_view["local"]
    points = sorted((p for s in STRATEGIES for p in local[s]), key=lambda p: p.seq)
    assert [p.seq for p in points] == [c.seq for c in rec.calls]
    assert [(p.prompt, p.measured) for p in points] == [(c.prompt_tokens, c.cached_tokens) for c in rec.calls]
    for strategy in STRATEGIES:
        assert [p.turn for p in local[strategy] if p.round == 1] == [1, 2, 3, 4]


def test_frozen_carries_the_whole_file_the_others_a_few_notes_fixed_within_a_request(data):
    local = data[1]["local"]
    frozen = {p.injected for p in local["frozen"]}
    assert len(frozen) == 1
    for strategy in ("select", "retrieve"):
        assert all(0 < p.injected < min(frozen) for p in local[strategy])
        by_turn = {}
        for p in local[strategy]:
            by_turn.setdefault(p.turn, set()).add(p.injected)
        assert all(len(v) == 1 for v in by_turn.values())


def test_totals_add_up_and_frozen_computes_each_token_once(data):
    for view, per in data[1].items():
        for strategy, points in per.items():
            t = sf.totals(points)
            assert t.requests == len(points) and t.recomputed == t.prompt - t.read
    frozen = data[1]["local"]["frozen"]
    # nothing in frozen's prefix changes: the server computes each token once
    assert sf.totals(frozen).recomputed == frozen[-1].prompt
