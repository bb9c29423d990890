import json
import socket

import pytest

from miniagent.model import ChatModel, ModelError

from fake_server import FakeChatServer, completion

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]


def test_records_the_exact_request_and_the_raw_response():
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    with FakeChatServer([(200, completion({"role": "assistant", "content": None, "tool_calls": [call]}))]) as srv:
        model = ChatModel(srv.url, "smol", max_tokens=8)
        reply = model.complete([{"role": "user", "content": "中文 hi"}], TOOLS, temperature=0)
    assert reply.request == json.loads(srv.received[0])  # what went over the wire
    assert reply.request["max_tokens"] == 8 and reply.request["tools"] == TOOLS
    assert reply.response["timings"]["cache_n"] == 73  # non-standard fields survive
    assert reply.message == {"role": "assistant", "content": "", "tool_calls": [call]}


def test_server_errors_are_retried_then_reported():
    ok = completion({"role": "assistant", "content": "fine"})
    with FakeChatServer([(503, {"error": "busy"}), (200, ok)]) as srv:
        reply = ChatModel(srv.url, max_retries=2).complete([{"role": "user", "content": "x"}])
    assert reply.message["content"] == "fine" and len(srv.received) == 2
    with FakeChatServer([(500, {"error": "boom"})] * 3) as srv:
        with pytest.raises(ModelError, match="answered HTTP 500"):
            ChatModel(srv.url, max_retries=1).complete([{"role": "user", "content": "x"}])
        assert len(srv.received) == 2  # one try plus one retry


def test_a_server_that_is_down_gives_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once the socket closes
    with pytest.raises(ModelError, match=f"cannot reach the model server at http://127.0.0.1:{port}/v1"):
        ChatModel(f"http://127.0.0.1:{port}/v1", max_retries=0, timeout=2).complete([{"role": "user", "content": "x"}])


def test_a_response_without_choices_is_a_clear_error():
    with FakeChatServer([(200, {"usage": {}})]) as srv:
        with pytest.raises(ModelError, match=r"no choices\[0\]\.message"):
            ChatModel(srv.url, max_retries=0).complete([{"role": "user", "content": "x"}])
