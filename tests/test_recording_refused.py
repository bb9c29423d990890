"""A request the server refuses (HTTP 400 with a JSON error) is kept: the request as sent and the error."""
import json

import pytest

from miniagent.model import ModelError
from prefixlab.recording.chat_client import RecordingChatModel, RequestRefused

from fake_server import FakeChatServer

OVER = {"error": {"code": 400, "message": "request (2110 tokens) exceeds the available context size (2048 tokens), "
                  "try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 2110, "n_ctx": 2048}}


def test_a_refused_request_carries_the_request_as_sent_and_the_servers_error():
    with FakeChatServer([(400, OVER)]) as server:
        model = RecordingChatModel(server.url, "local", log=lambda line: None)
        with pytest.raises(RequestRefused, match="exceeds the available context size") as caught:
            model.complete([{"role": "user", "content": "hi"}], max_tokens=1, temperature=0)
    assert len(server.received) == 1  # never retried
    assert caught.value.request == json.loads(server.received[0])
    assert caught.value.error == {"status": 400, "body": OVER}


@pytest.mark.parametrize("status, body", [(400, b"not json"), (400, {"message": "no error object"}),
                                          (503, {"error": {"message": "busy"}})])
def test_other_errors_pass_through_as_they_are(status, body):
    with FakeChatServer([(status, body)]) as server:
        model = RecordingChatModel(server.url, "local", log=lambda line: None)
        with pytest.raises(ModelError) as caught:
            model.complete([{"role": "user", "content": "hi"}])
    assert not isinstance(caught.value, RequestRefused)
