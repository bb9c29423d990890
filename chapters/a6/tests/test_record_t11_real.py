"""Record one T11 session on the real llama-server and check it token by token (lesson A6·1).

The session is ``edit-reload-day1``: the two server patterns T11 adds to T10 -- a compaction whose
summary the served model writes (a request without tools, with many generated tokens) and a
mid-session AGENTS.md edit that breaks the prefix inside the system prompt. Every request must
re-tokenize to the server's prompt_tokens and be predicted exactly by the llama.cpp rule.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from chapters.a6.experiments.instruction_files import T11Recorder
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    def run(recorder):
        recorder.run_session("edit-reload", 1, *recorder.fresh_copy("edit-reload"))

    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "t11-short", T11Recorder, run)


def test_every_request_retokenizes_to_the_servers_count(recorded):
    kinds = [c.kind for c in recorded.calls]
    assert kinds.count("compaction") == 1 and kinds.count("model_call") == 10
    assert check(recorded, load_tokenizer()) == []


def test_every_cached_count_is_predicted_exactly(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.seq, r.read) for r in rows] == [(r.seq, r.measured) for r in rows]
    summary = next(r for r, c in zip(rows, recorded.calls) if c.kind == "compaction")
    assert recorded.calls[summary.seq].response["usage"]["completion_tokens"] > 1  # the model wrote it
    edited = next(r for r in rows if r.round == 4 and recorded.calls[r.seq].kind == "model_call")
    assert edited.break_block == "agents_md"
