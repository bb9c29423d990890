"""The book's figures are built from the recording and switch precomputed scenarios in plotly.js."""
import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.figures import memory_timing as charts
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def rec():
    return load(RECORDINGS / "t10-smollm2-llamacpp")  # the book's recording


def test_prefix_break_figure_has_a_chart_per_rule_and_one_slider_for_k(rec):
    options = charts.RULE_OPTIONS[:3]
    data = charts.prefix_break_data(rec, ks=[0, 5], options=options)
    fig = charts.prefix_break_figure(data)
    assert [a.text for a in fig.layout.annotations] == [label for label, _, _ in options]
    assert not fig.layout.updatemenus  # no rule menu: a menu that rebuilt the slider would reset k
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == ["不刷新", "5"]
    # every step shows every rule at that k: moving k never loses the rule, picking a rule never loses k
    for step, k in zip(steps, [0, 5]):
        shown = [t for t, on in zip(fig.data, step.args[0]["visible"]) if on]
        assert {t.xaxis for t in shown} == {t.xaxis for t in fig.data}
        assert len(shown) == len(fig.data) // 2
    visible = [t for t in fig.data if t.visible]
    assert {t.name for t in visible} == {"从缓存读", "写入缓存", "按原价计算、不缓存", "实测读取(服务器报告)"}
    assert sum(1 for t in fig.data if t.showlegend is not False) == 4  # one legend entry per part
    # k = 5 under our server's rule: the refresh round recomputes from the memory body on
    rows = data[(options[0][0], 5)]
    assert next(r for r in rows if r.round == 6).break_block == "memory_body"
    assert all(r.ok for r in rows)


def test_bars_add_up_to_the_prompt(rec):
    label, rule, config = charts.RULE_OPTIONS[1]
    for row in charts.scenario_rows(rec, rule, config, 3):
        parts = charts._bar_parts(row)
        assert sum(parts.values()) == row.prompt_tokens


def test_swimlane_has_three_rows_per_design_and_a_day_boundary(rec):
    from chapters.a6.figures.swimlane import groups

    fig = charts.swimlane_figure(rec)
    heat = fig.data[0]
    designs = groups(rec)
    assert len(heat.y) == 3 * len(designs) and heat.x[0] == "D1·1" and heat.x[-1].startswith("D2")
    assert [y.split(" · ")[1] for y in heat.y[:3]] == ["system prompt 里", "对话里", "磁盘上"]
    row = {y: z for y, z in zip(heat.y, heat.z)}
    assert 2 in row["冻结组 · system prompt 里"]  # frozen: on disk, not in the system prompt yet on day 1
    assert 2 not in row["刷新组 · system prompt 里"]  # refresh: never behind
    # from the write on, the note is in every design's conversation on day 1
    for design in designs:
        label = charts.GROUP_LABELS[design]
        day1 = [z for x, z in zip(heat.x, row[f"{label} · 对话里"]) if x.startswith("D1")]
        disk = [z for x, z in zip(heat.x, row[f"{label} · 磁盘上"]) if x.startswith("D1")]
        assert day1 == disk, design
    assert [b.label for b in fig.layout.updatemenus[0].buttons][0] == "全部"


def test_swimlane_has_a_colour_key(rec):
    fig = charts.swimlane_figure(rec)
    key = [t for t in fig.data if t.type == "scatter"]
    assert [t.name for t in key] == list(charts.LANE_KEY)
    assert [t.marker.color for t in key] == [c for _, c in charts.LANE_COLORS]
    assert fig.layout.showlegend
