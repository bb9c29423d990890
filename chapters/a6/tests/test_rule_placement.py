"""Lesson A6·1's per-request view of the T11 recording."""
import pytest

from prefixlab.cache.composition import PARTS
from prefixlab.paths import RECORDINGS
from chapters.a6.figures import rule_placement as rp
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def recording():
    return load(RECORDINGS / "t11-smollm2-llamacpp")


def test_rows_cover_every_request_and_add_up(recording):
    rows = rp.request_rows(recording)
    assert [r.seq for r in rows] == [c.seq for c in recording.calls]
    assert all(sum(r.parts.values()) == r.prompt_tokens for r in rows)
    assert all(r.predicted == r.cached_tokens for r in rows)
    assert set(rp.PART_LABELS) == set(PARTS)
    summaries = [r for r in rows if r.kind == "compaction"]
    assert summaries and all(not r.has_tools and r.label.endswith("压缩") for r in summaries)
    assert {r.where for r in rows} == {"不在", "消息 1(user)", "AGENTS.md"}


def test_a_request_that_only_grew_has_no_break(recording):
    rows = rp.request_rows(recording)
    grew = [r for r in rows if r.reads_previous]
    assert grew and all(r.break_words == "—" for r in grew)
    first = rows[0]
    assert first.cached_tokens == 0 and first.break_words == "开头(缓存是空的)"
    broken = [r for r in rows if not r.reads_previous and r.cached_tokens]
    assert broken and all(r.break_words not in ("—", r.break_block) for r in broken)  # named in words
    assert rp.block_words("user#1") == "消息 1(user)" and rp.block_words("template#0").startswith("prompt 开头")
    assert rp.block_words("memory_body") == "记忆正文" and rp.block_words("unknown-block") == "unknown-block"


def test_figure_switches_variants_with_a_menu(recording):
    fig = rp.composition_figure(recording)
    names = rp.variants(rp.request_rows(recording))
    assert names == ["message", "agents", "edit-frozen", "edit-reload"]
    buttons = fig.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == [rp.VARIANT_LABELS[v] for v in names]
    per_variant = len(rp.PART_LABELS) - 1 + 2  # a part no request has (skills, in T11) is not drawn
    assert len(fig.data) == per_variant * len(names)
    for i, b in enumerate(buttons):
        visible = b.args[0]["visible"]
        assert sum(visible) == per_variant and visible[i * per_variant]


def test_every_menu_choice_keeps_its_legend(recording):
    """A trace the menu shows carries its own legend entry, so no choice loses the key."""
    fig = rp.composition_figure(recording)
    first = None
    for b in fig.layout.updatemenus[0].buttons:
        shown = {fig.data[i].name for i, on in enumerate(b.args[0]["visible"])
                 if on and fig.data[i].showlegend is not False}
        assert "实测读取" in shown and len(shown) >= 3
        first = first or shown
        assert shown == first
