"""miniagent's child agents (children.py, chapter A7): fresh and forked children, the brief, the
limits, the child's own session file linked to the parent's entry, its usage in the parent's ledger."""
import copy
import json

import pytest

from miniagent.children import (BRIEF_LIMIT, ChildLimits, add_children, child_entries, open_child)
from miniagent.loop import Limits, run_task
from miniagent.memory import MemoryStore
from miniagent.model import ModelError, ModelReply
from miniagent.session import Session, usage_ledger
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from helpers import answer, tool_call

SYSTEM = "You are a careful agent."


class UsageModel:
    """Replies from a script; every reply reports usage: prompt = number of messages, completion 1."""

    def __init__(self, turns, fail=False):
        self.turns, self.requests, self.tools, self.fail = list(turns), [], [], fail

    def complete(self, messages, tools=None, **params):
        if self.fail:
            raise ModelError("connection refused")
        self.requests.append(copy.deepcopy(messages))
        self.tools.append(tools)
        usage = {"prompt_tokens": 10 * len(messages), "completion_tokens": 1,
                 "prompt_tokens_details": {"cached_tokens": 5}}
        return ModelReply(self.turns.pop(0), {"messages": messages, "tools": tools}, {"usage": usage})


def spawn(call_id="s1", mode="fresh", goal="Find where the port is set", context="The repo is small",
          output="One line: file - setting"):
    return tool_call(call_id, "spawn_agent", goal=goal, context=context, output=output, mode=mode)


def agent(tmp_path, parent_turns, child_turns, limits=None, fail=False):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "app.py").write_text("PORT = 8080\n")
    toolbox = Toolbox(Workspace(repo), MemoryStore(tmp_path / "home" / "MEMORY.md"))
    session = Session.open(tmp_path / "parent.jsonl")
    parent = UsageModel(parent_turns)
    children = {}

    def model_for(number, mode):
        children[number] = UsageModel(child_turns[number - 1], fail=fail)
        return children[number]

    agents = add_children(toolbox, session, model_for, **({"limits": limits} if limits else {}))
    result = run_task("Tell me the port", model=parent, toolbox=agents.toolbox, session=session,
                      steps=[FixedPrompt(SYSTEM)])
    return result, session, parent, children, toolbox


def test_without_children_the_toolbox_is_unchanged(tmp_path):
    toolbox = Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "M.md"))
    before = json.dumps(toolbox.definitions)
    agents = add_children(toolbox, Session(tmp_path / "p.jsonl"), lambda n, m: None)
    assert json.dumps(toolbox.definitions) == before and "spawn_agent" not in toolbox.handlers
    names = [d["function"]["name"] for d in agents.toolbox.definitions]
    assert names[-1] == "spawn_agent" and names[:-1] == [d["function"]["name"] for d in toolbox.definitions]


def test_a_fresh_child_reads_only_the_brief_and_returns_its_report(tmp_path):
    result, session, parent, children, _ = agent(
        tmp_path, [tool_call("r1", "read_file", path="app.py"), spawn(), answer("port 8080")],
        [[tool_call("c1", "read_file", path="app.py"), answer("app.py - PORT = 8080")]])
    assert result == "port 8080"
    child = children[1]
    first = child.requests[0]
    assert [m["role"] for m in first] == ["system", "user"] and first[0]["content"] == SYSTEM
    assert "Goal: Find where the port is set" in first[1]["content"] and "Report: One line" in first[1]["content"]
    assert child.tools[0] == parent.tools[0]  # the same tools, spawn_agent included: the same prefix bytes
    # the report is the tool result; the parent's context holds the report only
    tool_results = [m for m in parent.requests[-1] if m["role"] == "tool"]
    assert tool_results[-1] == {"role": "tool", "tool_call_id": "s1", "content": "app.py - PORT = 8080"}


def test_the_child_entry_and_the_child_file_are_linked_both_ways(tmp_path):
    _, session, _, _, _ = agent(tmp_path, [spawn(), answer("ok")], [[answer("report")]])
    [entry] = child_entries(session)
    assert entry["toolCallId"] == "s1" and entry["mode"] == "fresh" and entry["status"] == "done"
    assert entry["path"] == f"parent.children/{entry['id']}.jsonl"
    child = open_child(session, entry)
    assert child.entries[0]["type"] == "system"
    assert child.entries[0]["parentSession"] == {"path": "parent.jsonl", "entryId": entry["id"]}
    # the child entry comes right before the tool message that carries the report
    types = [(e["type"], (e.get("message") or {}).get("role")) for e in Session.open(session.path).path_to()]
    i = types.index(("child", None))
    assert types[i + 1] == ("message", "tool") and types[i - 1] == ("message", "assistant")
    # the parent's messages never show the child entry
    assert all(m["role"] != "child" for m in session.messages())


def test_the_childs_usage_is_in_the_parents_ledger_and_counted_once(tmp_path):
    _, session, _, _, _ = agent(tmp_path, [spawn(), answer("ok")],
                                [[tool_call("c1", "list_files", path="."), answer("report")]])
    [entry] = child_entries(session)
    child = open_child(session, entry)
    own = usage_ledger([e for e in session.entries if e["type"] != "child"])
    assert entry["usage"] == usage_ledger(child.entries) and entry["usage"]["calls"] == 2
    total = usage_ledger(Session.open(session.path).entries)
    assert total == {k: own[k] + entry["usage"][k] for k in own}


def test_a_forked_child_starts_with_the_parents_last_request(tmp_path):
    _, session, parent, children, _ = agent(
        tmp_path, [tool_call("r1", "read_file", path="app.py"), spawn(mode="fork"), answer("ok")], [[answer("r")]])
    first = children[1].requests[0]
    assert first[:-1] == parent.requests[1]  # the parent's second request, byte for byte
    assert first[-1]["role"] == "user" and "Goal:" in first[-1]["content"]
    assert child_entries(session)[0]["mode"] == "fork"


def test_a_child_at_the_depth_limit_gets_an_error_not_a_grandchild(tmp_path):
    _, session, _, children, _ = agent(tmp_path, [spawn(), answer("ok")],
                                       [[spawn("g1"), answer("did it myself")]])
    child = open_child(session, child_entries(session)[0])
    results = [m["content"] for m in child.messages() if m["role"] == "tool"]
    assert results == ["error: depth limit reached: this agent is at depth 1 and children may go 1 deep; "
                       "do the task yourself"]
    assert not (tmp_path / "parent.children" / (child.path.stem + ".children")).exists()


def test_depth_two_allows_a_grandchild_and_its_usage_rolls_up(tmp_path):
    _, session, _, children, _ = agent(tmp_path, [spawn(), answer("ok")],
                                       [[spawn("g1"), answer("child report")], [answer("grandchild report")]],
                                       limits=ChildLimits(depth=2))
    [entry] = child_entries(session)
    child = open_child(session, entry)
    [grand] = child_entries(child)
    assert open_child(child, grand).entries[0]["parentSession"]["entryId"] == grand["id"]
    assert entry["usage"]["calls"] == 3  # the child's two calls and the grandchild's one


def test_a_runaway_child_is_stopped_by_its_limits_and_the_parent_goes_on(tmp_path):
    endless = [tool_call(f"c{i}", "list_files", path=".") for i in range(10)]
    result, session, _, children, _ = agent(tmp_path, [spawn(), answer("gave up")], [endless],
                                            limits=ChildLimits(limits=Limits(max_rounds=3)))
    assert result == "gave up"
    [entry] = child_entries(session)
    assert entry["status"] == "stopped" and entry["usage"]["calls"] == 3
    report = [m["content"] for m in session.messages() if m["role"] == "tool"][0]
    assert report.startswith("the child stopped before it answered (no final answer after 3 rounds)")


def test_a_child_whose_model_fails_is_recorded_as_failed(tmp_path):
    result, session, _, _, _ = agent(tmp_path, [spawn(), answer("sorry")], [[]], fail=True)
    [entry] = child_entries(session)
    assert entry["status"] == "failed" and entry["usage"]["calls"] == 0
    assert [m["content"] for m in session.messages() if m["role"] == "tool"] == [
        "the child failed: connection refused"]


@pytest.mark.parametrize("arguments, message", [
    ({"goal": "x", "context": "y", "output": "z", "mode": "clone"}, "mode must be one of fresh, fork, not 'clone'"),
    ({"goal": " ", "context": "y", "output": "z", "mode": "fresh"}, "the brief's 'goal' is empty"),
    ({"goal": "x", "context": "y", "output": "", "mode": "fresh"}, "the brief's 'output' is empty"),
    ({"goal": "x", "context": "y" * BRIEF_LIMIT, "output": "z", "mode": "fresh"}, "more than 4000"),
    ({"goal": "x", "context": "y", "mode": "fresh"}, "missing required argument 'output'"),
    ({"goal": 3, "context": "y", "output": "z", "mode": "fresh"}, "'goal' must be a string"),
])
def test_a_bad_brief_is_an_error_result_and_no_child_runs(tmp_path, arguments, message):
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "s1", "type": "function", "function": {"name": "spawn_agent", "arguments": json.dumps(arguments)}}]}
    _, session, _, children, _ = agent(tmp_path, [call, answer("ok")], [[answer("never")]])
    [result] = [m["content"] for m in session.messages() if m["role"] == "tool"]
    assert result.startswith("error:") and message in result
    assert children == {} and child_entries(session) == [] and not (tmp_path / "parent.children").exists()


def test_spawn_outside_a_tool_call_is_refused(tmp_path):
    agents = add_children(Toolbox(Workspace(tmp_path), MemoryStore(tmp_path / "M.md")),
                          Session(tmp_path / "p.jsonl"), lambda n, m: None)
    result = agents.toolbox.call("spawn_agent", {"goal": "x", "context": "y", "output": "z", "mode": "fresh"})
    assert result == "error: spawn_agent was called outside a model's tool call; there is no call to answer"


@pytest.mark.parametrize("depth", [0, -1, True, 1.5, "1"])
def test_bad_child_limits_are_refused(depth):
    with pytest.raises(ValueError, match="depth must be a whole number"):
        ChildLimits(depth=depth)
    with pytest.raises(ValueError, match="limits must be a loop.Limits"):
        ChildLimits(limits={"max_rounds": 3})


def test_open_child_names_a_missing_file(tmp_path):
    session = Session(tmp_path / "p.jsonl")
    entry = session.append("child", path="p.children/abc.jsonl", mode="fresh", status="done", usage={})
    with pytest.raises(FileNotFoundError, match="names p.children/abc.jsonl"):
        open_child(session, entry)


def test_append_with_a_taken_entry_id_is_refused(tmp_path):
    session = Session(tmp_path / "p.jsonl")
    entry = session.append("system", content="x")
    with pytest.raises(ValueError, match="already used"):
        session.append("message", entry_id=entry["id"], message={"role": "user", "content": "y"})
    assert len(Session.open(tmp_path / "p.jsonl").entries) == 1


def test_the_command_line_gives_the_tool_only_when_asked(tmp_path, capsys):
    from fake_server import FakeChatServer, completion
    from miniagent.cli import main

    (tmp_path / "repo").mkdir()
    spawn_call = {"id": "s1", "type": "function", "function": {"name": "spawn_agent", "arguments": json.dumps(
        {"goal": "g", "context": "c", "output": "o", "mode": "fresh"})}}
    replies = [(200, completion({"role": "assistant", "content": None, "tool_calls": [spawn_call]})),
               (200, completion({"role": "assistant", "content": "child report"})),
               (200, completion({"role": "assistant", "content": "all done"}))]
    common = ["-w", str(tmp_path / "repo"), "--memory", str(tmp_path / "M.md")]
    with FakeChatServer(replies) as srv:
        code = main(["task", *common, "--server", srv.url, "--session", str(tmp_path / "s.jsonl"), "--children", "5"])
    assert code == 0 and "all done" in capsys.readouterr().out
    tools = [t["function"]["name"] for t in json.loads(srv.received[0])["tools"]]
    assert tools[-1] == "spawn_agent" and json.loads(srv.received[1])["messages"][-1]["content"].startswith("You are a child")
    [entry] = child_entries(Session.open(tmp_path / "s.jsonl"))
    assert entry["status"] == "done" and (tmp_path / entry["path"]).is_file()
    with FakeChatServer([(200, completion({"role": "assistant", "content": "ok"}))]) as srv:
        main(["task", *common, "--server", srv.url, "--session", str(tmp_path / "t.jsonl")])
    assert "spawn_agent" not in [t["function"]["name"] for t in json.loads(srv.received[0])["tools"]]
    for bad in ("0", "x"):
        with pytest.raises(SystemExit):
            main(["task", *common, "--children", bad])
    assert "--children: must be" in capsys.readouterr().err
