"""miniagent.constrained (opt-in): every request carries a JSON schema of "one call or the final answer",
the reply is read back as tool_calls or as the answer; without --constrained nothing changes."""
import json

import pytest

from miniagent.cli import main
from miniagent.constrained import FINAL_ANSWER, ConstrainedModel, as_message, call_schema, response_format
from miniagent.loop import run_task
from miniagent.model import ChatModel
from miniagent.session import Session
from miniagent.tools import Toolbox, Workspace

from fake_server import FakeChatServer, completion

TOOLS = Toolbox(Workspace("."), memory=None).definitions
NAMES = {d["function"]["name"] for d in TOOLS}


def test_the_schema_offers_each_tool_with_its_own_parameters_and_the_final_answer():
    choices = call_schema(TOOLS)["oneOf"]
    assert [c["properties"]["tool"]["const"] for c in choices] == [*[d["function"]["name"] for d in TOOLS],
                                                                    FINAL_ANSWER]
    for choice, definition in zip(choices, TOOLS):
        assert choice["properties"]["arguments"] == definition["function"]["parameters"]
        assert choice["required"] == ["tool", "arguments"]
    assert FINAL_ANSWER not in NAMES
    assert response_format(TOOLS)["json_schema"]["schema"] == call_schema(TOOLS)


@pytest.mark.parametrize("content, expected", [
    ('{"tool": "read_file", "arguments": {"path": "a.py"}}',
     {"role": "assistant", "content": "", "tool_calls": [
         {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]}),
    ('{"tool": "final_answer", "arguments": {"answer": "All good."}}', {"role": "assistant", "content": "All good."}),
    ('{"tool": "read_file", "arguments": {"pa', None),      # cut off by max_tokens: stays text
    ('{"tool": "delete_all", "arguments": {}}', None),      # not an offered tool: stays text
    ('{"tool": "final_answer", "arguments": {}}', None),    # an answer without its text
    ('[1, 2]', None), ("plain words", None), ("", None),
])
def test_a_reply_becomes_a_call_an_answer_or_stays_text(content, expected):
    assert as_message(content, NAMES, "c1") == (expected or {"role": "assistant", "content": content})


def _serve(contents):
    return FakeChatServer([(200, completion({"role": "assistant", "content": c})) for c in contents])


def test_the_loop_runs_a_constrained_call_and_ends_on_the_final_answer(tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    contents = ['{"tool": "read_file", "arguments": {"path": "a.py"}}',
                '{"tool": "final_answer", "arguments": {"answer": "It prints a."}}']
    with _serve(contents) as srv:
        model = ConstrainedModel(ChatModel(srv.url, progress=None, max_retries=0))
        session = Session.open(tmp_path / "s.jsonl")
        answer = run_task("What does a.py print?", model=model, toolbox=Toolbox(Workspace(tmp_path), memory=None),
                          session=session)
    assert answer == "It prints a."
    sent = [json.loads(b) for b in srv.received]
    assert all(body["response_format"] == response_format(body["tools"]) for body in sent)
    tool_result = [m for m in sent[1]["messages"] if m["role"] == "tool"]
    assert tool_result and "print('a')" in tool_result[0]["content"]
    assert sent[1]["messages"][-2]["tool_calls"][0]["function"]["name"] == "read_file"


def test_a_request_without_tools_is_left_alone(tmp_path):
    with _serve(["hello"]) as srv:
        reply = ConstrainedModel(ChatModel(srv.url, progress=None, max_retries=0)).complete(
            [{"role": "user", "content": "hi"}])
    assert reply.message["content"] == "hello" and "response_format" not in json.loads(srv.received[0])


def test_the_command_line_sends_the_schema_only_when_asked(tmp_path, capsys):
    final = '{"tool": "final_answer", "arguments": {"answer": "done"}}'

    def run(*extra):
        with _serve([final]) as srv:
            code = main(["x", "-w", str(tmp_path), "--server", srv.url, "--memory", str(tmp_path / "M.md"),
                         "--session", str(tmp_path / f"s{len(extra)}.jsonl"), *extra])
        return code, capsys.readouterr().out.rstrip(), json.loads(srv.received[0])

    code, out, body = run()
    assert code == 0 and out.endswith(final) and "response_format" not in body  # off: the JSON is the answer
    code, out, body = run("--constrained")
    assert code == 0 and out.endswith("\ndone") and body["response_format"]["type"] == "json_schema"
