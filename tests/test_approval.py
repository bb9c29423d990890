"""miniagent/approval.py: the policies, the allow-list, and a refusal that reaches the model as a message."""
import pytest

from miniagent.approval import Approval, rule_allows, scripted_human
from miniagent.memory import MemoryStore
from miniagent.tools import Toolbox, Workspace


@pytest.fixture
def box(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("old\n")

    def make(approval):
        return Toolbox(Workspace(root, command_timeout=5), MemoryStore(tmp_path / "MEMORY.md"), approval=approval)
    return make


def test_auto_runs_everything_and_asks_nobody(box):
    approval = Approval("auto")
    assert box(approval).call("write_file", {"path": "b.txt", "content": "x"}).startswith("Wrote")
    assert approval.asked == []


def test_never_refuses_changes_but_lets_reads_run(box):
    b = box(Approval("never"))
    assert b.call("read_file", {"path": "a.txt"}) == "old\n"
    refused = b.call("edit_file", {"path": "a.txt", "old": "old", "new": "new"})
    assert refused.startswith("error: edit_file needs approval") and "did not run" in refused
    assert b.call("read_file", {"path": "a.txt"}) == "old\n"


def test_ask_puts_the_question_to_the_human_in_order(box):
    approval = Approval("ask", human=scripted_human([True, False]))
    b = box(approval)
    assert b.call("write_file", {"path": "b.txt", "content": "x"}).startswith("Wrote")
    denied = b.call("run_command", {"command": "touch c.txt"})
    assert denied == "error: the user did not approve this run_command call; it did not run"
    assert [(n, a) for n, _, a in approval.asked] == [("write_file", True), ("run_command", False)]


def test_an_allow_list_rule_skips_the_question(box):
    approval = Approval("ask", allow=("run_command: python -m unittest",), human=scripted_human([]))
    b = box(approval)
    assert "[exit code" in b.call("run_command", {"command": "python -m unittest"})
    assert approval.asked == []


@pytest.mark.parametrize("command", ["python -m unittest; rm -rf .", "python -m unittest && curl x",
                                     "python -m unittest > out.txt", "python -m unittest $(whoami)",
                                     "python -m unittest | tee x", "python -m unittest\nrm x"])
def test_a_prefix_rule_never_covers_a_command_with_shell_operators(command):
    assert not rule_allows("run_command: python -m unittest", "run_command", {"command": command})


def test_a_bare_tool_rule_covers_every_call_of_that_tool():
    assert rule_allows("edit_file", "edit_file", {"path": "x", "old": "a", "new": "b"})
    assert not rule_allows("edit_file", "write_file", {"path": "x", "content": "b"})


def test_bad_policies_are_refused_with_their_name():
    with pytest.raises(ValueError, match="unknown approval policy 'sometimes'"):
        Approval("sometimes")
    with pytest.raises(ValueError, match="needs a human"):
        Approval("ask")


def test_a_human_with_no_answers_left_says_no(box):
    approval = Approval("ask", human=scripted_human([]))
    assert "did not approve" in box(approval).call("write_file", {"path": "b.txt", "content": "x"})


# Issue 48: approval fails closed; a decision is True or it is a no.
@pytest.mark.parametrize("answer", ["no", "yes", "", 1, None, [False]])
def test_only_the_answer_true_approves(box, answer):
    approval = Approval("ask", human=lambda name, args: answer)
    assert "did not approve" in box(approval).call("write_file", {"path": "b.txt", "content": "x"})
    assert approval.asked[0][2] is False


@pytest.mark.parametrize("rule", ["run_command:", "run_command:   ", "edit_file:"])
def test_an_empty_prefix_rule_covers_nothing(rule):
    for command in ("ls", "rm -rf .", "python -m unittest; rm -rf ."):
        assert not rule_allows(rule, "run_command", {"command": command})
    assert not rule_allows(rule, "edit_file", {"path": "x", "old": "a", "new": "b"})


@pytest.mark.parametrize("rule", ["run_command:", ":ls", "", 5])
def test_an_allow_list_with_a_rule_that_names_nothing_is_refused(rule):
    with pytest.raises(ValueError, match="allow-list rule"):
        Approval("ask", allow=(rule,), human=scripted_human([]))


def test_an_allow_list_given_as_one_string_is_refused():
    with pytest.raises(ValueError, match="must be a list or tuple of rules, not str"):
        Approval("ask", allow="run_command: ls", human=scripted_human([]))


def test_an_allow_list_as_a_list_works_like_a_tuple(box):
    approval = Approval("ask", allow=["write_file"], human=scripted_human([]))
    assert box(approval).call("write_file", {"path": "b.txt", "content": "x"}).startswith("Wrote")
    assert approval.allow == ("write_file",)
