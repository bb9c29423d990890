"""A7's lab: a child sent offline leaves a linked session file, a child entry and a ledger; a runaway
child is stopped by its limit; a bad brief sends no child."""
from chapters.a7.lab.children import ChildLab


def test_a_forked_child_starts_with_the_parents_conversation():
    lab = ChildLab()
    try:
        run = lab.run("Find the export plugins.", "plugins/ holds 30 modules.", "One line each", mode="fork")
        assert run.child_entry["status"] == "done" and run.child_entry["mode"] == "fork"
        assert [m["role"] for m in run.first_child_request] == ["system", "user", "assistant", "tool", "user"]
        assert "<id>" in run.describe() and run.child_entry["id"] not in run.describe()
    finally:
        lab.close()


def test_a_runaway_child_is_stopped_and_a_bad_brief_sends_none():
    lab = ChildLab()
    try:
        stopped = lab.run("Find them.", "plugins/", "One line", mode="fresh", max_rounds=2, child_reads=5)
        assert stopped.child_entry["status"] == "stopped" and stopped.child_entry["usage"]["calls"] == 2
        assert [m["role"] for m in stopped.first_child_request] == ["system", "user"]
        none = lab.run("", "plugins/", "One line")
        assert none.child_entry is None and none.tool_result.startswith("error: the brief's 'goal' is empty")
    finally:
        lab.close()
