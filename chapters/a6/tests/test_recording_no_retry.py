"""A recording shows everything the server saw: no silent retry, a patient timeout, progress output.

Issue 21 point 6: under load the SDK's first attempt of T11's summary request timed out at the
client but reached the server; the silent retry was recorded alone, and the calculator
mispredicted. Here fake servers misbehave on purpose -- one is slower than the (short) test
timeout, one drops the connection -- and each test counts the requests the server received:
every one of them is either recorded with its answer or named as unanswered in the reason the
recording is marked incomplete. None is sent twice.
"""
from __future__ import annotations

import threading

import pytest
from fake_server import DROP, FakeChatServer, completion

from miniagent.model import ModelError
from miniagent.session import Session
from prefixlab.recording import chat_client
from prefixlab.recording.chat_client import RecordingChatModel, RequestUnanswered
from prefixlab.recording.format import is_request, load
from chapters.a6.experiments.memory_timing import T10Recorder as Recorder, main
from prefixlab.recording.recorder import run_recording

STALLED = 2  # the third request is the one that misbehaves (the first two are answered)
PROVENANCE = {"server": {"kind": "external", "flags": []}, "model": {"name": "fake"},
              "chat_template": {"sha256": "x", "text": "x"}, "tokenizer": {"sha256": "x", "path": "x"}, "recorder": {}}


def ok():
    return 200, completion({"role": "assistant", "content": "x"}, 100, 0)


@pytest.fixture
def short_timeout(monkeypatch):
    monkeypatch.setattr(chat_client, "TIMEOUT", 0.5)
    monkeypatch.setattr(chat_client, "PROGRESS_EVERY", 0.1)


def answered_requests(out) -> int:
    """Requests kept with their answer in the session files, finished sessions or not."""
    return sum(is_request(e) for path in out.glob("*.jsonl") for e in Session.open(path).entries)


def test_a_slow_server_stops_the_recording_without_a_retry(tmp_path, short_timeout, capsys):
    release = threading.Event()

    def slow(body):
        if len(server.received) == STALLED + 1:
            release.wait(10)  # much longer than the test's timeout; released at the end
        return ok()

    out = tmp_path / "t10"
    with FakeChatServer(slow) as server:
        code = main([str(out), "--server-url", server.url, "--model", "fake", "--no-counterfactuals", "--no-live"])
        received = len(server.received)
        release.set()
    assert code == 1
    assert received == STALLED + 1, "the request that timed out was sent again"
    assert answered_requests(out) == STALLED
    recording = load(out, allow_incomplete=True)
    assert recording.manifest["status"] == "incomplete"
    error = recording.manifest["error"]
    assert error.startswith("RequestUnanswered: the request with ") and "got no answer" in error
    assert "within 0 s" in error or "within 1 s" in error  # the (short) timeout of this test
    assert "not sent again" in error and "stops here" in error
    output = capsys.readouterr()
    assert "waiting for the server: " in output.out  # progress while it waited
    assert "marked incomplete" in output.err


def test_a_dropped_connection_stops_the_recording_without_a_retry(tmp_path, short_timeout):
    def dropping(body):
        return DROP if len(server.received) == STALLED + 1 else ok()

    out = tmp_path / "t10"
    with FakeChatServer(dropping) as server:
        recorder = Recorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local",
                            log=lambda line: None)
        assert run_recording("record_t10", recorder, counterfactuals=False, live=False) == 1
        received = len(server.received)
    assert received == STALLED + 1, "the request whose connection dropped was sent again"
    assert answered_requests(out) == STALLED
    recording = load(out, allow_incomplete=True)
    assert recording.manifest["status"] == "incomplete"
    assert "lost its connection" in recording.manifest["error"]
    assert "not sent again" in recording.manifest["error"]


def test_a_server_error_is_not_retried_either(tmp_path):
    with FakeChatServer([(503, {"error": "busy"}), ok()]) as server:
        model = RecordingChatModel(server.url, "local", log=lambda line: None)
        with pytest.raises(ModelError, match="HTTP 503"):
            model.complete([{"role": "user", "content": "hi"}])
        assert len(server.received) == 1


def test_a_server_that_is_not_running_is_not_called_unanswered():
    # Nothing listens there: the request never reached a server, so nothing can be hidden.
    model = RecordingChatModel("http://127.0.0.1:9/v1", "local", log=lambda line: None, timeout=5)
    with pytest.raises(ModelError, match="is it running") as caught:
        model.complete([{"role": "user", "content": "hi"}])
    assert not isinstance(caught.value, RequestUnanswered)


def test_progress_lines_while_waiting_and_none_after_the_answer():
    lines, release = [], threading.Event()

    def slow(body):
        release.wait(0.45)
        return ok()

    with FakeChatServer(slow) as server:
        model = RecordingChatModel(server.url, "local", log=lines.append, timeout=5, progress_every=0.1)
        reply = model.complete([{"role": "user", "content": "hi"}])
    assert reply.response["usage"]["prompt_tokens"] == 100
    assert 2 <= len(lines) <= 5 and all(line.strip().startswith("waiting for the server: ") for line in lines)
    assert lines[0].endswith("(stops at 5 s)")
    count = len(lines)
    threading.Event().wait(0.3)
    assert len(lines) == count  # the progress thread ended with the answer


def test_recorders_use_the_recording_client():
    recorder = Recorder.__new__(Recorder)
    recorder.connect, recorder.model_name, recorder.log = (lambda: "http://127.0.0.1:9/v1"), "local", print
    model = recorder.model()
    assert isinstance(model, RecordingChatModel)
    assert model.chat.client.max_retries == 0 and model.timeout == chat_client.TIMEOUT == 600
