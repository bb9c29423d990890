"""Lesson A6·4's figures: the tree of a session file and the branch-switching panels, from a recording."""
import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.figures import session_tree as st
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def rec():
    return load(RECORDINGS / "t10-smollm2-llamacpp")  # holds a fork: frozen-day1-fork in frozen-day1.jsonl


@pytest.fixture(scope="module")
def tree(rec):
    return st.session_tree(rec, "frozen-day1.jsonl")


def test_tree_has_one_leaf_per_session_of_the_file(rec, tree):
    assert [l.session for l in tree.leaves] == ["frozen-day1", "frozen-day1-fork"]
    fork = rec.session_info("frozen-day1-fork")["forked_from"]["entry"]
    assert tree.branch_points() == [fork]
    trunk, branch = tree.leaves
    # both paths share everything up to the fork point, then part
    shared = trunk.path[: trunk.path.index(fork) + 1]
    assert branch.path[: len(shared)] == shared and branch.path[len(shared)] not in trunk.path
    assert branch.forked_at == fork and trunk.forked_at is None
    # layout: the trunk stays on lane 0, the branch gets its own lane, depth grows along a path
    assert {tree.y[i] for i in trunk.path} == {0} and tree.y[branch.leaf] == 1
    assert [tree.x[i] for i in branch.path] == list(range(len(branch.path)))


def test_requests_carry_the_measured_and_the_predicted_hit(rec, tree):
    branch = tree.leaves[1]
    first = branch.first
    call = rec.session_calls("frozen-day1-fork")[0]
    assert (first.prompt_tokens, first.measured) == (call.prompt_tokens, call.cached_tokens)
    assert first.predicted == first.measured
    assert first.last_user == call.request["messages"][-1]["content"]
    assert "frozen-day1 第" in first.source  # the fork reads the trunk's prefix


def test_tree_figure_has_a_button_per_leaf_that_shows_its_path(tree):
    fig = st.tree_figure(tree, start="frozen-day1-fork")
    menu = fig.layout.updatemenus[0]
    assert [b.label for b in menu.buttons] == ["叶子:frozen-day1", "叶子:frozen-day1-fork"] and menu.active == 1
    highlight = [t for t in fig.data if t.name == "选中的路径"]
    assert len(highlight) == 2 and [t.visible for t in highlight] == [False, True]
    for k, button in enumerate(menu.buttons):
        visible, layout = button.args
        shown = [t for t, v in zip(fig.data, visible["visible"]) if v and t.name == "选中的路径"]
        assert len(shown) == 1 and len(shown[0].x) == len(tree.leaves[k].path)
        assert tree.leaves[k].session in layout["annotations"][0]["text"]
    assert "实测读取" in fig.layout.annotations[0].text


def test_tree_text_marks_the_leaves(tree):
    text = st.tree_text(tree)
    assert text.count("← ") == 2 and "← frozen-day1-fork" in text


def test_unknown_file_is_a_clear_error(rec):
    with pytest.raises(KeyError, match="no session in file"):
        st.session_tree(rec, "nope.jsonl")


def test_switch_figure_one_panel_per_setup(rec):
    sessions = ["frozen-day1", "frozen-day1-fork"]
    data = st.switch_data({"甲": rec, "乙": rec}, sessions)
    rows = data["甲"]
    assert [r.order for r in rows] == list(range(1, len(rows) + 1))
    assert all(r.predicted == r.measured for r in rows)
    assert any("host cache" in n for r in rows for n in r.notes)  # the fork's first request loads a saved prompt
    fig = st.switch_figure(data)
    assert [a.text for a in fig.layout.annotations] == ["甲", "乙"]
    bars = [t for t in fig.data if t.type == "bar" and t.name.startswith("实测读取")]
    assert {t.name for t in bars} == {"实测读取 · frozen-day1", "实测读取 · frozen-day1-fork"}
    assert sum(1 for t in fig.data if t.name == "计算器推算") == 2
