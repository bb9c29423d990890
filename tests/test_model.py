import json
import re
import socket
import time

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


# -- bad answers and hangs (issue 21) -------------------------------------------------------------

def test_an_answer_that_is_not_json_is_a_clear_error():
    with FakeChatServer([(200, b"<html>proxy error</html>")]) as srv:
        with pytest.raises(ModelError, match=r"answered something that is not JSON .*<html>proxy error</html>"):
            ChatModel(srv.url, max_retries=0).complete([{"role": "user", "content": "x"}])


@pytest.mark.parametrize("call, problem", [
    ({"id": "c1", "type": "function"}, "tool_calls[0] has no 'function'"),
    ({"id": "c1", "function": {"arguments": "{}"}}, "tool_calls[0].function has no 'name'"),
    ({"function": {"name": "f", "arguments": "{}"}}, "tool_calls[0] has no 'id'"),
    ("f()", "tool_calls[0] is not an object"),
])
def test_a_tool_call_the_agent_cannot_run_is_a_clear_error(call, problem):
    reply = completion({"role": "assistant", "content": None, "tool_calls": [call]})
    with FakeChatServer([(200, reply)]) as srv:
        with pytest.raises(ModelError, match=re.escape(problem)):
            ChatModel(srv.url, max_retries=0).complete([{"role": "user", "content": "x"}])


def slow(seconds, reply):
    def answer(body):
        time.sleep(seconds)
        return 200, reply
    return answer


def test_a_server_that_stops_answering_times_out_with_a_clear_message_and_is_not_retried():
    lines = []
    ok = completion({"role": "assistant", "content": "late"})
    with FakeChatServer(slow(3, ok)) as srv:
        model = ChatModel(srv.url, timeout=1.2, max_retries=3, progress=lines.append, progress_every=0.5)
        started = time.monotonic()
        with pytest.raises(ModelError, match=r"did not answer within 1.2 s") as err:
            model.complete([{"role": "user", "content": "x"}])
        assert time.monotonic() - started < 2.5  # one try: a retry would send the same work again
        assert "is it running?" not in str(err.value) and "--request-timeout" in str(err.value)
        assert len(srv.received) == 1
    assert lines and all(re.fullmatch(r"  waiting for the model server: \d+ s \(timeout 1.2 s\)", l) for l in lines)


def test_retries_are_announced_and_every_try_sends_the_same_bytes():
    lines = []
    ok = completion({"role": "assistant", "content": "fine"})
    with FakeChatServer([(503, {"error": "busy"}), (502, {"error": "gateway"}), (200, ok)]) as srv:
        reply = ChatModel(srv.url, max_retries=2, progress=lines.append).complete([{"role": "user", "content": "x"}])
    assert reply.message["content"] == "fine" and len(set(srv.received)) == 1 and len(srv.received) == 3
    assert [re.sub(r"in [\d.]+ s", "in N s", l) for l in lines] == [
        "  the model server answered HTTP 503; retry 1 of 2 in N s",
        "  the model server answered HTTP 502; retry 2 of 2 in N s"]


def test_the_default_request_is_byte_identical_to_the_sdk_body():
    # Shipped recordings are replayed offline: the body must not depend on the retry machinery.
    ok = completion({"role": "assistant", "content": "fine"})
    messages = [{"role": "user", "content": "中文 \"quoted\""}]
    with FakeChatServer([(200, ok)]) as srv:
        ChatModel(srv.url, "smol", max_tokens=8).complete(messages, TOOLS, temperature=0)
    # The bytes the client sent before retries became its own (issue 21), captured then.
    assert srv.received[0] == (
        b'{"model":"smol","messages":[{"role":"user","content":"\xe4\xb8\xad\xe6\x96\x87 \\"quoted\\""}],'
        b'"max_tokens":8,"temperature":0,"tools":[{"type":"function","function":{"name":"f","parameters":'
        b'{"type":"object","properties":{}}}}]}')


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": -1}, {"timeout": float("nan")}, {"max_retries": -1}])
def test_a_timeout_or_retry_count_that_makes_no_sense_is_refused(kwargs):
    with pytest.raises(ValueError, match="timeout|max_retries"):
        ChatModel("http://127.0.0.1:1/v1", **kwargs)
