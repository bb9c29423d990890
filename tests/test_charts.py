"""The book's figures are built from the recording and switch precomputed scenarios in plotly.js."""
import pytest

from prefixlab.presenting import charts
from prefixlab.recording.format import find_recordings, load


@pytest.fixture(scope="module")
def rec():
    return load(find_recordings()[0])


def test_prefix_break_figure_has_a_menu_per_rule_and_a_slider_per_k(rec):
    options = charts.RULE_OPTIONS[:2]
    data = charts.prefix_break_data(rec, ks=[0, 5], options=options)
    fig = charts.prefix_break_figure(data)
    assert [b.label for b in fig.layout.updatemenus[0].buttons] == [label for label, _, _ in options]
    assert [s.label for s in fig.layout.sliders[0].steps] == ["不刷新", "5"]
    visible = [t for t in fig.data if t.visible]
    assert {t.name for t in visible} == {"从缓存读", "写入缓存", "按原价计算、不缓存", "实测命中(服务器报告)"}
    # k = 5 under our server's rule: the refresh round recomputes from the memory body on
    rows = data[(options[0][0], 5)]
    assert next(r for r in rows if r.round == 6).break_block == "memory_body"
    assert all(r.ok for r in rows)


def test_bars_add_up_to_the_prompt(rec):
    label, rule, config = charts.RULE_OPTIONS[1]
    for row in charts.scenario_rows(rec, rule, config, 3):
        parts = charts._bar_parts(row)
        assert sum(parts.values()) == row.prompt_tokens


def test_swimlane_has_four_lanes_and_a_day_boundary(rec):
    fig = charts.swimlane_figure(rec)
    heat = fig.data[0]
    assert len(heat.y) == 4 and heat.x[0] == "D1·1" and heat.x[-1].startswith("D2")
    assert 2 in heat.z[3]  # frozen: disk ahead of the prompt on day 1
    assert 2 not in heat.z[1]  # refresh: never behind
