"""miniagent.loop_guard (opt-in): a call repeated just after itself is answered by the harness; calls that
add nothing new, `patience` in a row, stop the run with a `stopped` entry; other runs are untouched."""
import pytest

from miniagent.cli import main
from miniagent.loop import run_task
from miniagent.loop_guard import REPEATED, GuardedLimits, LoopGuard, call_key
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from fake_server import FakeChatServer, completion
from helpers import ScriptedModel, answer, tool_call


class CountingTools:
    definitions = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}]

    def __init__(self):
        self.ran = []

    def call(self, name, arguments):
        self.ran.append(arguments)
        return f"result of {arguments}"


def test_equal_arguments_give_one_key_however_spaced():
    assert call_key("t", '{"a": 1, "b": 2}') == call_key("t", '{"b":2,"a":1}') == call_key("t", {"a": 1, "b": 2})
    assert call_key("t", "{broken") != call_key("u", "{broken")


def test_a_call_just_repeated_is_answered_not_run_and_an_edit_in_between_lets_it_run_again():
    tools = CountingTools()
    guard = LoopGuard(tools, patience=10)
    assert guard.call("t", '{"x": 1}') == 'result of {"x": 1}'
    assert guard.call("t", '{"x": 1}') == REPEATED
    guard.call("t", '{"x": 2}')
    assert guard.call("t", '{"x": 1}') == 'result of {"x": 1}'   # not the one just before: it runs
    assert tools.ran == ['{"x": 1}', '{"x": 2}', '{"x": 1}'] and guard.answered == 1 and not guard.tripped


def test_a_cycle_without_anything_new_trips_the_guard_and_a_new_call_resets_it():
    guard = LoopGuard(CountingTools(), patience=3)
    for args in ('{"x": 1}', '{"x": 2}', '{"x": 1}', '{"x": 2}'):
        guard.call("t", args)
    assert guard.without_progress == 2 and not guard.tripped
    guard.call("t", '{"x": 3}')
    assert guard.without_progress == 0
    for args in ('{"x": 1}', '{"x": 2}', '{"x": 3}'):
        guard.call("t", args)
    assert guard.tripped == "no progress: 3 calls in a row the run had made before"


@pytest.mark.parametrize("patience", [0, -1, 1.5, True])
def test_a_patience_that_makes_no_sense_is_refused(patience):
    with pytest.raises(ValueError):
        LoopGuard(CountingTools(), patience=patience)


def test_the_loop_stops_with_a_stopped_entry_and_keeps_everything_before(tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    same = tool_call("c", "read_file", path="a.py")
    model = ScriptedModel([same] * 6 + [answer("never reached")])
    guard = LoopGuard(Toolbox(Workspace(tmp_path), memory=None), patience=3)
    session = Session.open(tmp_path / "s.jsonl")
    result = run_task("loop", model=model, toolbox=guard, session=session, limits=GuardedLimits(guard=guard))
    assert result == ""
    stopped = session.by_id[session.leaf]
    assert stopped["type"] == "stopped" and stopped["reason"].startswith("no progress: 3 calls")
    tool_results = [e["message"]["content"] for e in session.entries
                    if e["type"] == "message" and e["message"]["role"] == "tool"]
    assert "print('a')" in tool_results[0] and tool_results[1:] == [REPEATED] * 3
    assert (tmp_path / "a.py").read_text() == "print('a')\n"


def test_the_command_line_guards_only_when_asked(tmp_path, capsys):
    def run(*extra):
        call = {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "list_files", "arguments": '{"path": "."}'}}]}
        with FakeChatServer([(200, completion(call))] * 4) as srv:
            code = main(["x", "-w", str(tmp_path), "--server", srv.url, "--memory", str(tmp_path / "M.md"),
                         "--max-rounds", "4", "--session", str(tmp_path / f"s{len(extra)}.jsonl"), *extra])
        return code, capsys.readouterr().err, len(srv.received)

    code, err, sent = run()
    assert code == 1 and sent == 4 and "no final answer after 4 rounds" in err
    code, err, sent = run("--loop-guard", "2")
    assert code == 1 and sent == 3 and "no progress: 2 calls in a row" in err
