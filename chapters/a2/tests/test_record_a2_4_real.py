"""Record a short A2·4 slice on the real llama-server: the session whose MCP server changes its tool list.

Four requests of ``one-server-changed`` (list the checks, run them, the server adds ``show_check`` and
sends notifications/tools/list_changed, read the file, answer), with the course's MCP server really
started on stdio. Every request must re-tokenize to the server's count and be predicted exactly by the
llama.cpp rule; the request after the list changed reads less than the request before it (the cache
breaks inside the tool block), the one after that reads all of it again. The slice must also agree with
the shipped recording, request by request.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``); about a minute on 2 cores.
"""
import os

import pytest

from chapters.a2.experiments.mcp_servers import MCPRecorder
from chapters.a2.paths import MCP_RECORDING
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.format import load
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

VARIANT = "one-server-changed"
TURNS = 3  # list_checks, run_checks (then the list changes), read_file; then the answer


def _changed_slice(recorder):
    recorder.variants = (VARIANT,)
    recorder.script = {**recorder.script, "turns": recorder.script["turns"][:TURNS]}
    recorder.record()


@pytest.fixture(scope="module")
def changed(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a2-4-short", MCPRecorder, _changed_slice)


def test_every_request_is_predicted_exactly(changed):
    calls = changed.session_calls(VARIANT)
    assert len(calls) == TURNS + 1
    assert check(changed, load_tokenizer()) == []
    rows = calculator.analyze(changed)
    assert [(r.read, r.measured) for r in rows if r.read != r.measured] == []


def test_the_changed_list_breaks_the_cache_in_the_tool_block(changed):
    first, second, after_change, answer = changed.session_calls(VARIANT)
    assert first.cached_tokens == 0 and second.cached_tokens == first.prompt_tokens
    assert 0 < after_change.cached_tokens < second.prompt_tokens < after_change.prompt_tokens
    assert answer.cached_tokens == after_change.prompt_tokens


def test_the_slice_agrees_with_the_shipped_recording(changed):
    shipped = load(MCP_RECORDING).session_calls(VARIANT)[:TURNS + 1]
    assert [(c.prompt_tokens, c.cached_tokens) for c in changed.session_calls(VARIANT)] == \
           [(c.prompt_tokens, c.cached_tokens) for c in shipped]
