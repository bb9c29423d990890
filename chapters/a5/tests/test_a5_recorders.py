"""A5's recorders, offline: a fake server stands in for llama-server (not a result).

The fake counts each request's tokens the way the server does (the recorded template and
tokenizer) and refuses, with llama-server's error body, a prompt at or over a 2,048-token slot.
What must hold whatever the server answers: A5·1's session stops at the refused request, which is
recorded with the error; its fork cuts that last result to its first line and fits; A5·2's session
cuts old results and never changes a request otherwise.
"""
from __future__ import annotations

import pytest
from fake_server import FakeChatServer, completion

from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids
from prefixlab.paths import CHAT_TEMPLATE
from prefixlab.paths import TOKENIZER as TOKENIZER_PATH
from prefixlab.recording.format import load
from prefixlab.recording.recorder import base_provenance
from chapters.a5.experiments.context_limit import OverflowRecorder
from chapters.a5.experiments.tool_output_masking import MaskingRecorder

TOKENIZER, TEMPLATE = load_tokenizer(), load_template()
N_CTX = 2048


def counting_server(n_ctx=None):
    def reply(body):
        n = len(prompt_token_ids(TEMPLATE, TOKENIZER, body["messages"], body.get("tools")))
        if n_ctx is not None and n >= n_ctx:
            return 400, {"error": {"code": 400, "message": f"request ({n} tokens) exceeds the available context "
                                   f"size ({n_ctx} tokens), try increasing it", "type": "exceed_context_size_error",
                                   "n_prompt_tokens": n, "n_ctx": n_ctx}}
        return 200, completion({"role": "assistant", "content": "x"}, n, 0)
    return FakeChatServer(reply)


PROVENANCE = base_provenance(CHAT_TEMPLATE, TOKENIZER_PATH) | {"server": {"kind": "external", "flags": []},
                                                               "model": {"name": "fake"}}


@pytest.fixture(scope="module")
def overflow(tmp_path_factory):
    out = tmp_path_factory.mktemp("a5") / "overflow"
    with counting_server(N_CTX) as server:
        OverflowRecorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local",
                         log=lambda line: None).record()
    return load(out)


def test_the_overflow_session_stops_at_the_refused_request(overflow):
    calls = overflow.session_calls("overflow")
    assert [c.refused is None for c in calls] == [True] * (len(calls) - 1) + [False]
    last = calls[-1]
    assert last.prompt_tokens >= N_CTX and last.cached_tokens is None and last.response is None
    assert last.error["status"] == 400 and last.error["body"]["error"]["type"] == "exceed_context_size_error"
    assert all(c.prompt_tokens < N_CTX for c in calls[:-1])


def test_the_retry_forks_at_the_last_result_cut_to_its_first_line(overflow):
    refused = overflow.session_calls("overflow")[-1]
    retry, = overflow.session_calls("retry")
    info = overflow.session_info("retry")
    assert info["kind"] == "fork" and info["forked_from"]["after_round"] == refused.round - 1
    served, cut = refused.request["messages"], retry.request["messages"]
    assert cut[:len(served) - 1] == served[:-1]                       # the same history ...
    assert cut[len(served) - 1]["content"] == served[-1]["content"].split("\n")[0]  # ... its last result cut
    assert cut[-1]["role"] == "user" and retry.prompt_tokens < N_CTX


@pytest.mark.parametrize("setup", ["reuse0", "reuse256"])
def test_the_masking_session_cuts_results_older_than_the_kept_rounds(tmp_path, setup):
    with counting_server() as server:
        MaskingRecorder(tmp_path / setup, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local", setup,
                        log=lambda line: None).record()
    rec = load(tmp_path / setup)
    assert rec.manifest["setup"] == setup
    tools = [[m["content"] for m in c.request["messages"] if m["role"] == "tool"] for c in rec.calls]
    keep = rec.session_info("masking")["keep_rounds"]
    for i, results in enumerate(tools):  # request i carries the results of rounds 1..i
        assert len(results) == i
        assert all("\n" not in r for r in results[:max(0, i - keep)])  # older than the kept rounds: cut
        assert all("\n" in r for r in results[max(0, i - keep):])      # the kept rounds: whole
