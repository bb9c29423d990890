"""miniagent.call_retry: an answer that tried to call a tool and could not be read goes back with a
correction, a bounded number of times; anything else is left exactly as run_task leaves it."""
import json

import pytest

from miniagent.call_retry import CORRECTION, run_with_retry, tried_to_call
from miniagent.cli import main
from miniagent.loop import run_task
from miniagent.model import ChatModel
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from miniagent.text_calls import TextCalls
from miniagent.tools import Toolbox, Workspace

from fake_server import FakeChatServer, completion
from helpers import ScriptedModel, answer, tool_call

BROKEN = '<tool_call>\n{"name": "list_files", "arguments": {"path": "."}\n</tool_call>'  # a brace missing


def _loop(tmp_path, turns, name="s.jsonl"):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "a.py").write_text("print('a')\n")
    model = ScriptedModel(turns)
    loop = dict(model=model, toolbox=Toolbox(Workspace(repo), memory=None), session=Session.open(tmp_path / name),
                steps=[FixedPrompt("You are an agent.")], max_rounds=5)
    return model, loop


@pytest.mark.parametrize("text, tried", [
    (BROKEN, True),
    ('{"name": "read_file", "arguments": {"path": "a"', True),  # cut off
    ("All checks pass.", False),
    ("The config is {\"name\": \"x\", \"value\": 3}.", False),  # JSON, but no call
    ("", False), (None, False),
])
def test_what_counts_as_an_attempted_call(text, tried):
    assert tried_to_call(text) is tried


def test_a_broken_call_goes_back_with_the_correction_and_the_loop_goes_on(tmp_path):
    model, loop = _loop(tmp_path, [answer(BROKEN), tool_call("c1", "list_files", path="."), answer("done")])
    result, retries = run_with_retry("look around", **loop)
    assert (result, retries) == ("done", 1)
    second = model.requests[1]
    assert second[-2] == {"role": "assistant", "content": BROKEN}
    assert second[-1] == {"role": "user", "content": CORRECTION}
    roles = [m["role"] for m in loop["session"].messages()]
    assert roles == ["system", "user", "assistant", "user", "assistant", "tool", "assistant"]
    assert roles.count("system") == 1  # the step starts again, the system prompt is not repeated


def test_retries_are_bounded_and_the_text_stands_as_the_answer(tmp_path):
    model, loop = _loop(tmp_path, [answer(BROKEN)] * 3)
    result, retries = run_with_retry("look around", "read the format", max_retries=2, **loop)
    assert (result, retries) == (BROKEN, 2) and len(model.requests) == 3
    assert [m["content"] for m in loop["session"].messages() if m["role"] == "user"][1:] == ["read the format"] * 2


@pytest.mark.parametrize("turns", [
    [answer("done")],                                                   # a plain answer
    [tool_call("c1", "read_file", path="a.py"), answer("read it")],     # a call that parsed
    [answer(BROKEN)],                                                   # max_retries=0: off
])
def test_without_a_broken_call_or_retries_every_request_is_what_run_task_sends(tmp_path, turns):
    plain, loop = _loop(tmp_path, turns, "plain.jsonl")
    expected = run_task("look around", **loop)
    retried, loop = _loop(tmp_path, turns, "retried.jsonl")
    got, retries = run_with_retry("look around", max_retries=0 if turns[0] == answer(BROKEN) else 1, **loop)
    assert (got, retries) == (expected, 0) and retried.requests == plain.requests


@pytest.mark.parametrize("settings, message", [
    ({"max_retries": -1}, "max_retries must be a whole number, 0 or more, not -1"),
    ({"max_retries": True}, "not True"), ({"max_retries": "2"}, "not '2'"),
    ({"correction": ""}, "the correction must be"), ({"correction": None}, "not None"),
])
def test_bad_settings_are_refused_before_anything_is_sent_or_written(tmp_path, settings, message):
    model, loop = _loop(tmp_path, [answer("done")])
    with pytest.raises(ValueError, match=message):
        run_with_retry("look around", **settings, **loop)
    assert model.requests == [] and loop["session"].entries == []


def test_with_text_calls_a_readable_call_is_lifted_and_only_a_broken_one_is_retried(tmp_path):
    """TextCalls(ChatModel(...)) takes a call written as whole JSON; the retry is for what it cannot take."""
    repo = tmp_path / "repo"
    repo.mkdir()
    readable = '```json\n{"name": "list_files", "arguments": {"path": "."}}\n```'
    replies = [(200, completion({"role": "assistant", "content": BROKEN})),
               (200, completion({"role": "assistant", "content": readable})),
               (200, completion({"role": "assistant", "content": "done"}))]
    with FakeChatServer(replies) as srv:
        model = TextCalls(ChatModel(srv.url, progress=None))
        result, retries = run_with_retry("look around", model=model, toolbox=Toolbox(Workspace(repo), memory=None),
                                         session=Session.open(tmp_path / "s.jsonl"))
    assert (result, retries) == ("done", 1)
    third = json.loads(srv.received[2])["messages"]
    assert third[-2]["tool_calls"][0]["function"]["name"] == "list_files" and third[-1]["role"] == "tool"


def test_the_command_line_retries_only_when_asked(tmp_path, capsys):
    def run(*extra):
        replies = [(200, completion({"role": "assistant", "content": BROKEN})),
                   (200, completion({"role": "assistant", "content": "done"}))]
        with FakeChatServer(replies) as srv:
            code = main(["x", "-w", str(tmp_path), "--server", srv.url, "--memory", str(tmp_path / "M.md"),
                         "--session", str(tmp_path / f"s{len(extra)}.jsonl"), *extra])
        return code, capsys.readouterr().out, len(srv.received)

    code, out, sent = run()
    assert code == 0 and sent == 1 and out.rstrip().endswith("</tool_call>")  # off: the broken text is the answer
    code, out, sent = run("--call-retries", "1")
    assert code == 0 and sent == 2 and out.rstrip().endswith("done")


@pytest.mark.parametrize("value", ["-1", "1.5", "x"])
def test_a_retry_count_that_makes_no_sense_is_refused(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as caught:
        main(["x", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1", "--session", str(tmp_path / "s.jsonl"),
              "--memory", str(tmp_path / "M.md"), "--call-retries", value])
    assert caught.value.code == 2 and "argument --call-retries: " in capsys.readouterr().err
    assert not (tmp_path / "s.jsonl").exists()
