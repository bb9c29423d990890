"""Lesson A6·1's loader explorer over data/a6/loader-tree: what miniagent loads from each directory."""
import pytest

from miniagent.agents_md import AGENTS_MD_CAP

from chapters.a6.figures import agents_md_explorer as ex


@pytest.fixture(scope="module")
def explorer():
    return ex.explore()


def row(explorer, cwd):
    return next(r for r in explorer.rows if r.cwd == cwd)


def test_each_directory_loads_the_files_on_its_path_root_first(explorer):
    assert [s.path for s in row(explorer, ".").segments] == ["AGENTS.md"]
    assert [s.path for s in row(explorer, "services/api/handlers").segments] == [
        "AGENTS.md", "services/AGENTS.md", "services/api/AGENTS.md"]  # handlers/ has none of its own
    assert [s.path for s in row(explorer, "web/src").segments] == ["AGENTS.md", "web/AGENTS.md"]
    # a sibling's file never loads
    assert all("billing" not in s.path for s in row(explorer, "services/api").segments)


def test_segments_tile_the_text_and_caps_cut_where_the_explorer_says(explorer):
    for r in explorer.rows:
        assert r.segments[0].start == 0 and r.segments[-1].end == r.total
        assert all(a.end == b.start for a, b in zip(r.segments, r.segments[1:]))
        assert r.marker[AGENTS_MD_CAP] == 0  # the default cap cuts nothing in this tree
        for cap in explorer.caps:
            assert (r.marker[cap] > 0) == (r.total > cap)
            assert sum(s.kept(cap) for s in r.segments) == min(cap, r.total)


def test_text_views(explorer):
    tree = ex.tree_text(explorer)
    assert "services/api/AGENTS.md" in tree and "字节" in tree
    small = ex.loads_text(explorer, 512)
    assert "截掉" in small and "截掉" not in ex.loads_text(explorer)


def test_figure_has_a_slider_step_per_cap_each_showing_its_own_traces(explorer):
    fig = ex.loader_figure(explorer)
    per_cap = 2 * len(explorer.files) + 1
    assert len(fig.data) == per_cap * len(explorer.caps)
    steps = fig.layout.sliders[0].steps
    caps = sorted(explorer.caps, reverse=True)  # the default first; drag right to shrink
    assert [s.label for s in steps] == [f"{c:,}" for c in caps]
    assert fig.layout.sliders[0].active == caps.index(AGENTS_MD_CAP) == 0
    assert sum(t.visible for t in fig.data) == per_cap
    for i, step in enumerate(steps):
        visible = step.args[0]["visible"]
        assert sum(visible) == per_cap and all(visible[i * per_cap:(i + 1) * per_cap])
