"""Lesson A6·R's figures: per-request points under every view, sums, the pause clock, the menus."""
from __future__ import annotations

import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.figures import strategies as sf
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def t10():
    # Any recording works for the mechanics; T10's frozen and refresh groups stand in for strategies.
    return load(RECORDINGS / "t10-smollm2-llamacpp")


@pytest.fixture(scope="module")
def data(t10):
    return sf.strategy_data(t10, {"frozen": "frozen-day1", "refresh": "refresh-day1"})


def test_every_view_has_every_request_of_every_strategy(t10, data):
    assert list(data) == [v.key for v in sf.VIEWS]
    for view in data.values():
        assert len(view["frozen"]) == len(t10.session_calls("frozen-day1"))
        for points in view.values():
            assert [p.index for p in points] == list(range(1, len(points) + 1))
            for p in points:
                assert p.read + p.fresh == p.prompt and p.uncached >= 0


def test_local_view_is_the_measurement(data):
    for points in data["local"].values():
        assert all(p.read == p.measured for p in points)  # the calculator is exact on the recording
        assert all(p.cost is None for p in points)


def test_cloud_views_are_priced(data):
    for key in ("anthropic", "anthropic-pause", "openai"):
        for points in data[key].values():
            assert all(p.cost is not None and p.cost > 0 for p in points)


def test_injected_tokens_are_the_memory_blocks(data):
    frozen = data["local"]["frozen"]
    assert frozen[0].injected > 0
    assert len({p.injected for p in frozen}) == 1  # the frozen snapshot never changes in a session
    refresh = data["local"]["refresh"]
    assert refresh[-1].injected > refresh[0].injected  # the refreshed system prompt carries the new note


def test_paused_times_shift_every_later_user_request(t10):
    indices = [i for i, c in enumerate(t10.calls) if c.session == "frozen-day1"]
    assert sf.paused_times(t10, indices, 600.0) == {i: t10.calls[i].t for i in indices}  # one user request
    # a second session in the same list: its user turns count on their own, the shift only grows
    both = [i for i, c in enumerate(t10.calls) if c.session in ("frozen-day1", "frozen-day1-fork")]
    times = sf.paused_times(t10, both, 600.0)
    assert all(b >= a for a, b in zip(list(times.values()), list(times.values())[1:]))


def test_turn_of_counts_user_messages(t10):
    call = t10.session_calls("frozen-day1")[-1]
    assert sf.turn_of(call) == 1


def test_totals_and_table(data):
    t = sf.totals(data["local"]["refresh"])
    assert t.requests == len(data["local"]["refresh"]) and t.measured == t.read
    rows = sf.totals_rows(data)
    assert len(rows) == len(sf.VIEWS) * 2 and len(rows[0]) == len(sf.TOTALS_HEADER)
    assert rows[0][-1] == "—" and rows[-1][-1].startswith("$")


def test_figure_has_a_menu_per_view_and_starts_on_the_measurement(data):
    fig = sf.strategy_figure(data)
    assert [b.label for b in fig.layout.updatemenus[0].buttons] == [v.label for v in sf.VIEWS]
    visible = {t.name for t in fig.data if t.visible}
    assert visible == {"从缓存读", "写入缓存", "重算、不写入", "注入的记忆 token", "实测读取(服务器报告)"}
    for button in fig.layout.updatemenus[0].buttons:
        shown = [t for t, on in zip(fig.data, button.args[0]["visible"]) if on]
        assert len(shown) in (2 * 5, 2 * 4)  # per strategy: 3 bars + injected (+ measured, local only)
        assert len(button.args[1]["annotations"]) == 2


def test_recall_figure_orders_k_puts_everything_last_and_switches_measure():
    from chapters.a6.figures.recall import Summary

    points = [Summary("retrieve", 3, 0.5, 0.25, 120.0), Summary("retrieve", 1, 0.25, 0.0, 40.0),
              Summary("frozen", None, 1.0, 1.0, 900.0)]
    fig = sf.recall_figure(points)
    retrieve = next(t for t in fig.data if t.name == sf.SHORT_LABELS["retrieve"] and t.visible)
    assert list(retrieve.text) == ["k=1", "k=3"] and list(retrieve.x) == [40.0, 120.0]  # the first line with k
    assert list(retrieve.y) == [0.25, 0.5]
    frozen = next(t for t in fig.data if t.name == sf.SHORT_LABELS["frozen"] and t.visible)
    assert list(frozen.text) == ["全部"]
    complete = fig.layout.updatemenus[0].buttons[1].args[0]["visible"]
    shown = [t for t, on in zip(fig.data, complete) if on]
    assert [list(t.y) for t in shown] == [[0.0, 0.25], [1.0]]
