import pytest

from miniagent.loop import run_task
from miniagent.modes import for_mode
from miniagent.memory import MemoryStore
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from helpers import ScriptedModel, answer, tool_call

NOTE = "Run the tests with: python -m pytest -q tests"
DAY1 = [tool_call("c1", "list_files", path="."),
        tool_call("c2", "remember", note=NOTE),
        tool_call("c3", "read_file", path="app.py"),
        answer("done")]


def _day(tmp_path, mode, turns, session_name):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "app.py").write_text("print('hi')\n")
    memory = MemoryStore(tmp_path / "home" / "MEMORY.md")
    provider = for_mode(mode, "base", "Answer briefly.", memory)
    model = ScriptedModel(turns)
    session = Session.open(tmp_path / session_name)
    result = run_task("fix it", model=model, toolbox=Toolbox(Workspace(repo), memory),
                      session=session, steps=[provider])
    systems = [request[0]["content"] for request in model.requests]
    return result, systems, session


def _types(session):
    return [e["type"] for e in session.path_to()]


@pytest.mark.parametrize("mode", ["refresh", "frozen"])
def test_every_round_sends_the_providers_prompt(tmp_path, mode):
    result, systems, session = _day(tmp_path, mode, DAY1, "day1.jsonl")
    assert result == "done" and len(systems) == 4
    with_note = [NOTE in s for s in systems]
    if mode == "refresh":
        # Written during round 2's tool call, visible from round 3 on.
        assert with_note == [False, False, True, True]
        assert _types(session).count("system_refresh") == 1
    else:
        assert with_note == [False, False, False, False]
        assert "system_refresh" not in _types(session)
    assert _types(session)[:2] == ["system", "message"]
    # The write is on disk at once in both modes.
    assert MemoryStore(tmp_path / "home" / "MEMORY.md").entries() == [NOTE]


def test_the_refresh_entry_sits_right_before_the_round_that_uses_it(tmp_path):
    _, _, session = _day(tmp_path, "refresh", DAY1, "day1.jsonl")
    types = _types(session)
    i = types.index("system_refresh")
    assert types[i + 1] == "model_call" and session.path_to()[i + 1]["round"] == 3
    assert NOTE in session.path_to()[i]["content"]


def test_frozen_memory_reaches_the_prompt_in_the_next_session(tmp_path):
    _day(tmp_path, "frozen", DAY1, "day1.jsonl")
    _, systems, session = _day(tmp_path, "frozen", [answer("day 2 done")], "day2.jsonl")
    assert NOTE in systems[0]
    assert "system_refresh" not in _types(session)


def test_tool_results_are_in_the_next_request(tmp_path):
    _, _, session = _day(tmp_path, "frozen", DAY1, "day1.jsonl")
    tool_messages = [m for m in session.messages() if m["role"] == "tool"]
    assert tool_messages[0]["content"] == "app.py" and tool_messages[0]["tool_call_id"] == "c1"
    assert tool_messages[1]["content"].startswith("Saved to MEMORY.md")


def test_max_rounds_stops_a_model_that_never_answers(tmp_path):
    turns = [tool_call(f"c{i}", "list_files", path=".") for i in range(3)]
    repo = tmp_path / "repo"
    repo.mkdir()
    memory = MemoryStore(tmp_path / "MEMORY.md")
    lines = []
    result = run_task("loop", model=ScriptedModel(turns), toolbox=Toolbox(Workspace(repo), memory),
                      session=Session.open(tmp_path / "s.jsonl"),
                      steps=[for_mode("frozen", "b", "", memory)], max_rounds=3, log=lines.append)
    assert result == "" and lines[-1] == "stopped: no final answer after 3 rounds"


def test_a_tool_call_with_a_wrongly_typed_argument_gets_an_error_message_not_a_crash(tmp_path):
    turns = [tool_call("c1", "remember", note=5), answer("done")]
    result, _, session = _day(tmp_path, "refresh", turns, "s.jsonl")
    assert result == "done"
    tool_messages = [m for m in session.messages() if m["role"] == "tool"]
    assert tool_messages[0]["content"] == "error: bad arguments for remember: 'note' must be a string, not integer"
    assert MemoryStore(tmp_path / "home" / "MEMORY.md").entries() == []
