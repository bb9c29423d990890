"""miniagent's children in parallel (children.py, ``add_children(..., parallel=True)``, chapter A7·4):
the spawn_agent calls of one assistant message run at once, each child with its own session file;
the child entries come in call order; a bad call gets its own error; off by default."""
import json
import threading
import time

from miniagent.children import add_children, child_entries, open_child
from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.model import ModelReply
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.tools import Toolbox, Workspace

from helpers import answer

SYSTEM = "You are a careful agent."


def two_spawns(bad_second=False):
    calls = []
    for i, goal in enumerate(["Find the port", "Find the host"], start=1):
        args = {"goal": goal, "context": "The repo is small", "output": "One line", "mode": "fresh"}
        if bad_second and i == 2:
            args["mode"] = "clone"
        calls.append({"id": f"s{i}", "type": "function",
                      "function": {"name": "spawn_agent", "arguments": json.dumps(args)}})
    return {"role": "assistant", "content": "", "tool_calls": calls}


class SlowModel:
    """Answers after ``delay`` seconds; notes how many models were answering at the same time."""

    running = 0
    most = 0
    lock = threading.Lock()

    def __init__(self, turns, delay=0.2):
        self.turns, self.delay = list(turns), delay

    def complete(self, messages, tools=None, **params):
        with SlowModel.lock:
            SlowModel.running += 1
            SlowModel.most = max(SlowModel.most, SlowModel.running)
        time.sleep(self.delay)
        with SlowModel.lock:
            SlowModel.running -= 1
        usage = {"prompt_tokens": 10 * len(messages), "completion_tokens": 1}
        return ModelReply(self.turns.pop(0), {"messages": messages}, {"usage": usage})


def run(tmp_path, parallel, bad_second=False):
    SlowModel.running = SlowModel.most = 0
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    toolbox = Toolbox(Workspace(repo), MemoryStore(tmp_path / "home" / "MEMORY.md"))
    session = Session.open(tmp_path / "parent.jsonl")
    reports = {1: "port 8080", 2: "host localhost"}
    options = {"parallel": True} if parallel else {}
    agents = add_children(toolbox, session, lambda n, mode: SlowModel([answer(reports[n])]), **options)
    started = time.monotonic()
    run_task("Tell me port and host", model=SlowModel([two_spawns(bad_second), answer("done")], delay=0),
             toolbox=agents.toolbox, session=session, steps=[FixedPrompt(SYSTEM)])
    return session, time.monotonic() - started


def test_parallel_children_run_at_the_same_time_and_report_in_call_order(tmp_path):
    session, seconds = run(tmp_path, parallel=True)
    assert SlowModel.most == 2
    entries = child_entries(session)
    assert [e["toolCallId"] for e in entries] == ["s1", "s2"] and all(e["status"] == "done" for e in entries)
    assert len({e["path"] for e in entries}) == 2  # each child its own session file
    tools = [m for m in session.messages() if m["role"] == "tool"]
    assert [(t["tool_call_id"], t["content"]) for t in tools] == [("s1", "port 8080"), ("s2", "host localhost")]
    for entry in entries:
        assert open_child(session, entry).entries[0]["parentSession"]["entryId"] == entry["id"]


def test_by_default_the_children_of_one_message_run_one_after_the_other(tmp_path):
    session, _ = run(tmp_path, parallel=False)
    assert SlowModel.most == 1
    assert [e["toolCallId"] for e in child_entries(session)] == ["s1", "s2"]


def test_a_bad_call_among_parallel_ones_gets_its_own_error(tmp_path):
    session, _ = run(tmp_path, parallel=True, bad_second=True)
    assert [e["toolCallId"] for e in child_entries(session)] == ["s1"]
    tools = {m["tool_call_id"]: m["content"] for m in session.messages() if m["role"] == "tool"}
    assert tools["s1"] == "port 8080" and "mode must be one of" in tools["s2"]
