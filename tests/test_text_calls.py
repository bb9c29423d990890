"""miniagent.text_calls: calls a model wrote as text become tool_calls; anything else stays text."""
import json

from miniagent.text_calls import TextCalls, find_text_calls, lift_text_calls

NAMES = {"read_file", "list_files", "run_command"}
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in sorted(NAMES)]


def test_fenced_json_call():
    text = 'I will read it.\n```json\n{"name": "read_file", "arguments": {"path": "README.md"}}\n```'
    calls, rest = find_text_calls(text, NAMES)
    assert calls == [("read_file", {"path": "README.md"})]
    assert rest == "I will read it."


def test_bare_and_tagged_calls_and_string_arguments():
    text = ('{"name": "list_files", "arguments": {"path": "."}}\n'
            '<tool_call>\n{"name": "run_command", "arguments": "{\\"command\\": \\"ls\\"}"}\n</tool_call>')
    calls, rest = find_text_calls(text, NAMES)
    assert calls == [("list_files", {"path": "."}), ("run_command", {"command": "ls"})]
    assert rest == ""


def test_parameters_key_is_accepted():
    calls, _ = find_text_calls('{"name": "read_file", "parameters": {"path": "a.py"}}', NAMES)
    assert calls == [("read_file", {"path": "a.py"})]


def test_unknown_tool_plain_json_and_broken_json_stay_text():
    for text in ['{"name": "delete_everything", "arguments": {}}',
                 'The config is {"name": "x", "value": 3}.',
                 '{"name": "read_file", "arguments": {"path": "README.md"',  # cut off
                 '{"name": "read_file", "arguments": "not json"}',
                 "All checks pass. {no json here}"]:
        calls, rest = find_text_calls(text, NAMES)
        assert calls == [] and rest == text.strip(), text


def test_lift_makes_tool_calls_with_stable_ids():
    message = {"role": "assistant", "content": '```json\n{"name": "read_file", "arguments": {"path": "说明.md"}}\n```'}
    lifted = lift_text_calls(message, TOOLS, "text_call_3")
    assert lifted == {"role": "assistant", "content": "", "tool_calls": [
        {"id": "text_call_3_1", "type": "function",
         "function": {"name": "read_file", "arguments": json.dumps({"path": "说明.md"}, ensure_ascii=False)}}]}
    assert lift_text_calls(message, TOOLS, "text_call_3") == lifted


def test_native_calls_and_prose_are_left_alone():
    native = {"role": "assistant", "content": "", "tool_calls": [{"id": "x", "type": "function",
                                                                  "function": {"name": "read_file", "arguments": "{}"}}]}
    prose = {"role": "assistant", "content": "STATUS: done"}
    assert lift_text_calls(native, TOOLS, "t") is native
    assert lift_text_calls(prose, TOOLS, "t") is prose


def test_chat_model_lifts_only_when_asked(monkeypatch):
    from miniagent.model import ChatModel
    from fake_server import FakeChatServer, completion

    content = '{"name": "list_files", "arguments": {"path": "."}}'
    def answer(body):
        return (200, completion({"role": "assistant", "content": content}))
    with FakeChatServer(answer) as server:
        plain = ChatModel(server.url, progress=None).complete([{"role": "user", "content": "hi"}], TOOLS)
        lenient = TextCalls(ChatModel(server.url, progress=None)).complete(
            [{"role": "user", "content": "hi"}], TOOLS)
    assert "tool_calls" not in plain.message and plain.message["content"] == content
    assert lenient.message["tool_calls"][0]["function"]["name"] == "list_files"
    assert lenient.message["tool_calls"][0]["id"] == "text_call_1_1"
    assert "text_calls" not in lenient.request  # the option changes what we read, never what we send
