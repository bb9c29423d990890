"""The shipped A4-2 recording (lesson A4·2), offline: what the lesson says it shows.

Each shape on its own server, two days of at least eight rounds; a follow-up request reads the whole
previous request back exactly when the environment block did not change; when it changed, the prefix
breaks inside the block (at the top: a few dozen tokens in; at the end: after the base prompt and
AGENTS.md); the llama.cpp rule predicts every request; the figure and the cost table come from it.
"""
import pytest

from prefixlab.cache import calculator
from chapters.a4.figures import volatile_top as charts
from chapters.a4.paths import A42_RECORDING
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def rec():
    return load(A42_RECORDING)


@pytest.fixture(scope="module")
def rows(rec):
    return charts.round_rows(rec)


def block(call) -> str:
    system = call.request["messages"][0]["content"]
    return system[system.index("# Environment"):].split("\n\nYou are miniagent")[0]


def test_three_shapes_two_days_one_slot_each_on_a_fresh_server(rec):
    assert rec.manifest["experiment"] == "A4-2" and rec.complete and rec.manifest["between_days_s"] == 0
    flags = rec.provenance["server"]["flags"]
    assert flags[flags.index("-np") + 1] == "1"
    sessions = rec.manifest["sessions"]
    assert [(s["shape"], s["day"]) for s in sessions] == [(sh, d) for sh in charts.SHAPES for d in (1, 2)]
    assert all(len(rec.session_calls(s["id"])) >= 8 for s in sessions)
    epochs = {s["shape"]: {c.epoch for c in rec.session_calls(s["id"])} for s in sessions}
    assert sorted(min(e) for e in epochs.values()) == [0, 1, 2] and all(len(e) == 1 for e in epochs.values())


def test_the_llamacpp_rule_predicts_every_request(rec):
    rows = calculator.analyze(rec)
    assert [(r.session, r.round, r.read, r.measured) for r in rows if r.read != r.measured] == []


def test_a_follow_up_reads_the_previous_request_whole_unless_the_block_changed(rec):
    for info in rec.manifest["sessions"]:
        calls = rec.session_calls(info["id"])
        for before, after in zip(calls, calls[1:]):
            if block(before) == block(after):
                assert after.cached_tokens == before.prompt_tokens, (info["id"], after.round)
            elif info["shape"] == "clock-top":
                assert after.cached_tokens < 100, (info["id"], after.round)
            else:  # at the end: the base prompt and AGENTS.md are read back, the tools and history are not
                assert 1000 < after.cached_tokens < before.prompt_tokens - 500, (info["id"], after.round)
    # the date-only block never changes within a day
    assert all(len({block(c) for c in rec.session_calls(f"date-only-day{d}")}) == 1 for d in (1, 2))


def test_the_lesson_rounds_are_what_the_prose_says(rows):
    top = charts.of(rows, "clock-top", 1)
    assert top[2].at != top[1].at                    # round 3: a new minute
    assert top[5].at == top[4].at and top[5].measured < 100   # round 6: same minute, a file changed


def test_recomputed_tokens_and_cloud_costs_put_date_only_first(rec, rows):
    totals = {shape: sum(r.recomputed for r in charts.of(rows, shape, 1)) for shape in charts.SHAPES}
    assert totals["clock-top"] > totals["clock-end"] > totals["date-only"] > 0
    costs = {c.shape: c for c in charts.session_costs(rec)}
    for rule, *_ in charts.RULE_MODELS:
        assert costs["date-only"].usd[rule] < costs["clock-end"].usd[rule] <= costs["clock-top"].usd[rule] * 1.001


def test_the_figure_has_both_views_and_needs_no_kernel(rows):
    fig = charts.rounds_figure(rows, day=1)
    assert len(fig.data) == len(charts.SHAPES) * 2 * 2
    assert [b.label for b in fig.layout.updatemenus[0].buttons] == ["每轮读取多少", "每轮重算多少"]
    assert sum(1 for t in fig.data if t.visible) == len(charts.SHAPES) * 2
    assert all(len(t.x) == 9 for t in fig.data)
