"""Lesson A6·4's checkers: the right answer passes, wrong or missing ones get a hint without the number."""
import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.exercises import a6_4 as ex
from chapters.a6.figures import session_tree as st
from chapters.a6.figures.session_tree import SwitchRow
from prefixlab.recording.format import load


@pytest.fixture(scope="module")
def rec():
    return load(RECORDINGS / "t10-smollm2-llamacpp")  # holds a fork: frozen-day1-fork


@pytest.fixture(scope="module")
def tree(rec):
    return st.session_tree(rec, "frozen-day1.jsonl")


def right(verdict: str) -> bool:
    return verdict.startswith("对")


def test_truncation_deletes_the_trunk_below_the_fork_point(tree):
    trunk, fork = tree.leaves
    gone = ex.truncated(tree, "frozen-day1-fork")
    assert gone[-1]["id"] == trunk.leaf and gone[0]["parentId"] == fork.forked_at
    assert len(gone) == len(trunk.path) - trunk.path.index(fork.forked_at) - 1
    with pytest.raises(ValueError):
        ex.truncated(tree, "frozen-day1")


def test_check_lost(tree):
    n = len(ex.truncated(tree, "frozen-day1-fork"))
    assert ex.check_lost(tree, "frozen-day1-fork", None) == ex.ASK
    assert right(ex.check_lost(tree, "frozen-day1-fork", n))
    for guess in (n - 1, n + 1, 0):
        verdict = ex.check_lost(tree, "frozen-day1-fork", guess)
        assert verdict.startswith("不对") and str(n) not in verdict
    assert "整数" in ex.check_lost(tree, "frozen-day1-fork", "7")


def test_check_fork_hit(rec):
    call = rec.session_calls("frozen-day1-fork")[0]
    assert right(ex.check_fork_hit(rec, "frozen-day1-fork", call.cached_tokens))
    for guess in (call.cached_tokens + 6, call.prompt_tokens, 0):
        verdict = ex.check_fork_hit(rec, "frozen-day1-fork", guess)
        assert verdict.startswith("不对") and f"{call.cached_tokens:,}" not in verdict
    assert ex.check_fork_hit(rec, "frozen-day1-fork", None) == ex.ASK
    assert "整数" in ex.check_fork_hit(rec, "frozen-day1-fork", True)


def _rows(hits):
    """trunk, then a, b, a, b ... with prompts growing by 100 per request of a branch."""
    out, size = [], {"trunk": 500, "branch-a": 600, "branch-b": 600}
    for i, (session, hit) in enumerate(hits, start=1):
        out.append(SwitchRow(i, session, i, size[session], hit, hit, True, "x", ()))
        size[session] += 100
    return out


SESSIONS = ["trunk", "branch-a", "branch-b", "branch-a", "branch-b", "branch-a"]
# The pattern of the shipped t13-switch-* recordings: only two slots picked least-recently-used read a
# branch back whole on every switch; one slot, the host cache and two slots picked by similarity read only
# the shared trunk at least once (chapters/a6/tests/test_a64_chapter.py checks this on the recordings).
DATA = {
    "一个槽位": _rows(zip(SESSIONS, [0, 499, 500, 500, 500, 500])),       # a switch reads the trunk only
    "主机缓存": _rows(zip(SESSIONS, [0, 499, 500, 500, 600, 700])),       # the first switch reads the trunk only
    "两个槽位,按相似度挑": _rows(zip(SESSIONS, [0, 499, 500, 500, 500, 500])),
    "两个槽位,挑最久没用的": _rows(zip(SESSIONS, [0, 499, 500, 600, 600, 700])),  # every switch reads its branch back
}
LRU = "两个槽位,挑最久没用的"


def test_switch_backs_pair_a_request_with_its_branchs_previous_one():
    pairs = ex.switch_backs(DATA["一个槽位"])
    assert [(r.order, prev.order) for r, prev in pairs] == [(4, 2), (5, 3), (6, 4)]
    assert not ex.reads_back_whole(DATA["一个槽位"]) and not ex.reads_back_whole(DATA["主机缓存"])
    assert ex.reads_back_whole(DATA[LRU])


def test_check_switch_hit():
    assert right(ex.check_switch_hit(DATA, "一个槽位", 500))
    verdict = ex.check_switch_hit(DATA, "一个槽位", 600)
    assert verdict.startswith("不对") and "500" not in verdict
    assert ex.check_switch_hit(DATA, "一个槽位", None) == ex.ASK


def test_check_full_reuse():
    assert right(ex.check_full_reuse(DATA, [LRU]))
    assert right(ex.check_full_reuse(DATA, LRU))
    assert not right(ex.check_full_reuse(DATA, [LRU, "主机缓存"]))
    assert not right(ex.check_full_reuse(DATA, ["主机缓存"]))
    assert not right(ex.check_full_reuse(DATA, []))
    # the praise names no mechanism the accepted setups do not show
    praise = ex.check_full_reuse(DATA, [LRU])
    assert "主机内存" not in praise and "相似度" not in praise
    assert "没有叫" in ex.check_full_reuse(DATA, ["三个槽位"])
    assert "列表" in ex.check_full_reuse(DATA, 3)
    assert ex.check_full_reuse(DATA, None) == ex.ASK
