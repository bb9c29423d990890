"""Lesson A6·4's lab: text views of a session tree, branch switching, and a sandbox to grow branches."""
import pytest

from prefixlab.paths import RECORDINGS
from chapters.a6.lab.session_tree import Sandbox, SwitchLab, TreeLab

T10 = RECORDINGS / "t10-smollm2-llamacpp"  # holds a fork, so it stands in until T13 is recorded


def test_tree_lab_describes_a_leaf_path_and_its_requests():
    lab = TreeLab(T10, "frozen-day1.jsonl")
    assert lab.leaves() == ["frozen-day1", "frozen-day1-fork"]
    text = lab.describe("frozen-day1-fork")
    assert "回退 = 截断的话,要删掉 20 个条目" in text  # rounds 4-9: 3 entries each, round 10: 2
    assert text.count("← 本会话的请求") == len(lab.recording.session_calls("frozen-day1-fork"))
    assert text.count(" ◆") == 1
    with pytest.raises(ValueError, match="no leaf"):
        lab.describe("nope")


def test_sandbox_grows_a_branch_and_keeps_the_original():
    box = Sandbox(T10 / "frozen-day1.jsonl")
    before = box.session()
    fork_point = [e["id"] for e in before.path_to() if e["type"] == "message"
                  and e["message"]["role"] == "tool"][1]  # the tool result of round 2
    assert fork_point in dict((i, l) for l, i in box.entries())
    new = box.branch(fork_point, "Try another way.")
    after = box.session()
    assert len(after.entries) == len(before.entries) + 1 and new["parentId"] == fork_point
    assert after.entries[: len(before.entries)] == before.entries  # nothing written before changes
    assert "3 个叶子" in box.tree()  # miniagent's `session tree`, its words in Chinese
    assert "(3 leaves" not in box.tree() and "branch 1 of" not in box.tree()
    with pytest.raises(ValueError, match="消息是空的"):
        box.branch(fork_point, "  ")
    # an assistant message that calls a tool: its result is missing on that path
    calling = next(e["id"] for e in before.entries if e["type"] == "message" and e["message"].get("tool_calls"))
    assert calling not in dict((i, l) for l, i in box.entries())
    with pytest.raises(ValueError, match="no result yet"):
        box.branch(calling, "x")
    assert (T10 / "frozen-day1.jsonl").read_bytes() != box.path.read_bytes()  # the shipped file is untouched


def test_switch_lab_needs_no_recording_to_start(tmp_path):
    assert SwitchLab(tmp_path).setups() == []
    with pytest.raises(ValueError, match="no recording"):
        SwitchLab(tmp_path).describe("one-slot")


def test_switch_lab_describes_every_request():
    lab = SwitchLab()
    setup = lab.setups()[0]
    text = lab.describe(setup)
    assert text.count("实测读取") == len(lab.rows[setup]) and " ⇄" in text
