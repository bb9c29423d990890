"""Lesson A6·3's figures on small inputs: the skills-count slider and the break-point view."""
from __future__ import annotations

import json

import pytest

from prefixlab.cache import pricing
from chapters.a6.figures import skills as sf


def manifest_data(**over):
    data = {
        "source": {"repo": "example/agent", "commit": "0" * 40, "licence": "MIT"},
        "tokenizer": "data/tokenizers/x.json",
        "index": {"description_cap": 60, "header_tokens": 50},
        "skills": [
            {"name": "a", "description": "first", "path": "skills/a/SKILL.md", "sha256": "x", "characters": 4000,
             "tokens": 1000, "index_tokens": 20},
            {"name": "b", "description": "second", "path": "skills/b/SKILL.md", "sha256": "y", "characters": 12000,
             "tokens": 3000, "index_tokens": 25},
            {"name": "c", "description": "third", "path": "skills/c/SKILL.md", "sha256": "z", "characters": 20000,
             "tokens": 5000, "index_tokens": 30},
        ],
    }
    data.update(over)
    return data


@pytest.fixture
def manifest():
    return sf.parse_manifest(manifest_data())


def test_curve_adds_skills_in_listed_order(manifest):
    curve = sf.count_curve(manifest, base_tokens=500, order="listed")
    assert [p.n for p in curve] == [0, 1, 2, 3]
    assert [p.inline for p in curve] == [500, 1500, 4500, 9500]
    assert [p.index for p in curve] == [500, 570, 595, 625]  # the header comes with the first skill
    assert curve[-1].index == 500 + manifest.index_total and curve[-1].inline == 500 + manifest.total_tokens
    assert [p.last for p in curve] == ["", "a", "b", "c"]


def test_shortest_first_order():
    m = sf.parse_manifest(manifest_data(skills=list(reversed(manifest_data()["skills"]))))
    assert [s.name for s in sf.ordered(m)] == ["a", "b", "c"]
    assert [s.name for s in sf.ordered(m, "listed")] == ["c", "b", "a"]
    assert [p.inline for p in sf.count_curve(m)] == [0, 1000, 4000, 9000]
    with pytest.raises(ValueError, match="unknown order"):
        sf.ordered(m, "random")


def test_largest_fitting(manifest):
    curve = sf.count_curve(manifest, base_tokens=500)
    assert sf.largest_fitting(curve, 4500) == 2   # equal to the window still fits
    assert sf.largest_fitting(curve, 4499) == 1
    assert sf.largest_fitting(curve, 100_000) == 3
    assert sf.largest_fitting(curve, 499) == -1
    assert sf.largest_fitting(curve, 600, design="index") == 2


def test_request_usd_uses_the_price_list():
    price = pricing.model_price("claude-opus-5")
    assert sf.request_usd(1_000_000, price) == pytest.approx(price.at(1_000_000).base_input)
    assert sf.request_usd(2000, price, "read") == pytest.approx(
        2000 * price.base_input * price.multipliers["read"] / 1_000_000)


def test_count_figure_slider_moves_the_markers(manifest):
    price = pricing.model_price("claude-opus-5")
    fig = sf.skills_count_figure(manifest, window=4000, price=price, base_tokens=500, order="listed")
    slider = fig.layout.sliders[0]
    assert len(slider.steps) == 4 and slider.active == 1  # starts at the most whole texts the window holds
    markers = fig.data[2:]
    assert [list(t.y) for t in markers] == [[500, 500], [1500, 570], [4500, 595], [9500, 625]]
    assert [t.visible for t in markers] == [False, True, False, False]
    visible, relayout = slider.steps[2].args
    assert visible["visible"] == [True, True, False, False, True, False]
    assert "4,500" in relayout["title.text"] and "窗口的 1.1 倍" in relayout["title.text"]
    assert "放得下" in slider.steps[1].args[1]["title.text"]
    assert f"${sf.request_usd(595, price):.4f}" in relayout["title.text"]
    assert fig.layout.yaxis.type == "log"
    assert any("4,000" in a.text and "前 1 份" in a.text for a in fig.layout.annotations)  # the window line
    assert list(fig.data[0].y) == [500, 1500, 4500, 9500]
    assert sf.skills_count_figure(manifest, 400, price, base_tokens=500).layout.sliders[0].active == 3  # nothing fits


@pytest.mark.parametrize("data, message", [
    ([], "object"),
    ({k: v for k, v in manifest_data().items() if k != "skills"}, "missing 'skills'"),
    (manifest_data(skills=[]), "non-empty"),
    (manifest_data(skills=[{"name": "a", "characters": 1, "tokens": -1, "index_tokens": 1}]), "tokens"),
    (manifest_data(skills=[{"characters": 1, "tokens": 1, "index_tokens": 1}]), "name"),
    (manifest_data(index={}), "description_cap"),
])
def test_bad_manifests_are_rejected_with_a_reason(data, message):
    with pytest.raises(sf.ManifestError, match=message):
        sf.parse_manifest(data)


def test_unparsable_skills_are_left_out():
    broken = {"path": "skills/x/SKILL.md", "error": "no front matter", "characters": 10, "tokens": 3, "index_tokens": None}
    m = sf.parse_manifest(manifest_data(skills=manifest_data()["skills"] + [broken]))
    assert [s.name for s in m.skills] == ["a", "b", "c"] and m.skills[0].description == "first"
    with pytest.raises(sf.ManifestError, match="no skill could be parsed"):
        sf.parse_manifest(manifest_data(skills=[broken]))


def test_load_manifest_errors(tmp_path):
    with pytest.raises(sf.ManifestError, match="no skills manifest"):
        sf.load_manifest(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(sf.ManifestError, match="not valid JSON"):
        sf.load_manifest(bad)
    good = tmp_path / "m.json"
    good.write_text(json.dumps(manifest_data()), encoding="utf-8")
    assert sf.load_manifest(good).skills[1].name == "b"


def view(label, cached, blocks, break_block):
    total = blocks[-1][2]
    return sf.BreakView(label, "s", 4, total, cached, cached, tuple(blocks), break_block,
                        cached if cached < total else None, "before <x>", "after")


STABLE = [("template#0", 0, 3), ("base", 3, 80), ("skills_index", 80, 200), ("agents_md", 200, 260),
          ("tools", 260, 700), ("template#1", 700, 703), ("user#1", 703, 740), ("template#2", 740, 745),
          ("assistant#2", 745, 800)]
VOLATILE = [("template#0", 0, 3), ("base", 3, 80), ("agents_md", 80, 140), ("skills_index", 140, 260),
            ("tools", 260, 700), ("template#1", 700, 703), ("user#1", 703, 740), ("assistant#2", 740, 800)]


def test_parts_of_blocks():
    assert [sf.part_of(b) for b in ("skills_index", "skills_inline", "memory_body", "tools", "template#3",
                                    "user#1", "tool#4", "base")] == [
        "skills", "skills", "memory", "tools", "template", "messages", "messages", "base"]


def test_break_figure_rows_and_hover():
    views = [view("索引在稳定层", 150, STABLE, "skills_index"), view("索引在易变层最前", 210, VOLATILE, "skills_index")]
    assert views[0].recomputed == 650 and views[1].block_span("skills_index") == (140, 260)
    fig = sf.break_figure(views)
    hits = [t for t in fig.data if t.name.startswith("读取")]
    fresh = [t for t in fig.data if t.name == "重算"]
    assert [t.x[0] for t in hits] == [150, 210] and [(t.base[0], t.x[0]) for t in fresh] == [(150, 650), (210, 590)]
    assert "前缀断在 skills_index" in fresh[0].hovertext[0] and "&lt;x&gt;" in fresh[0].hovertext[0]
    assert [t.showlegend for t in hits] == [True, False]  # one legend entry per part
    messages = next(t for t in fig.data if t.name.startswith("对话"))
    assert list(messages.base) == [703]  # user#1, the glue and assistant#2: one run
    assert "user#1, template#2, assistant#2" in messages.hovertext[0]
    assert len(fig.layout.yaxis.categoryarray) == 4
    both, only_stable, only_volatile = (b.args[0]["visible"] for b in fig.layout.updatemenus[0].buttons)
    assert all(both) and sum(only_stable) + sum(only_volatile) == len(fig.data)
    assert [t.name for t, on in zip(fig.data, only_stable) if on][-2:] == ["读取(来自缓存)", "重算"]
    zoom = fig.layout.updatemenus[1].buttons[1].args[0]["xaxis.range"]
    assert zoom[0] <= 150 and zoom[1] >= 210


def test_break_view_on_a_recorded_system_change():
    """T11's edit-reload session changes its system prompt mid-session: the same path the T12 views take."""
    from prefixlab.cache import calculator
    from prefixlab.paths import RECORDINGS
    from prefixlab.recording.format import load

    rec = load(RECORDINGS / "t11-smollm2-llamacpp")
    v = sf.break_view(rec, "edit-reload-day1", "edit")
    row = next(r for r in calculator.analyze(rec, sessions="edit-reload-day1") if r.round == v.round)
    assert (v.cached, v.prompt_tokens, v.break_block) == (row.measured, row.prompt_tokens, row.break_block)
    assert v.cached == v.predicted and v.break_block == "agents_md"
    assert v.blocks[0][1] == 0 and v.blocks[-1][2] == v.prompt_tokens
    assert all(a[2] == b[1] for a, b in zip(v.blocks, v.blocks[1:]))  # the blocks tile the prompt
    with pytest.raises(ValueError, match="never changes"):
        sf.first_changed_system(rec, "agents-day2")
    assert sf.served_window(rec) == 8192
    fig = sf.break_figure([v])
    assert fig.data[-1].name == "重算" and fig.data[-1].x[0] == v.recomputed


def test_cited_caps_are_the_cited_numbers():
    from prefixlab.presenting.book.citations import get_citation

    for key, (cap, cid) in sf.CITED_CAPS.items():
        quoted = " ".join(t if isinstance(t, str) else t[1] for t in get_citation(cid).quote)
        assert str(cap) in quoted or f"{cap:,}" in quoted, f"{key}: {cap} is not in {cid}'s quote"
