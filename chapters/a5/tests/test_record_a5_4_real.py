"""Record a short slice of A5·4 on the real llama-server (-c 4096 -np 1): the task up to its first
compaction and one round after it, the summary call offering the agent's tools.

Every request must re-tokenize to the server's count and be predicted exactly by the llama.cpp
rule, the summary call included; the summary call must read more than the whole first request (system turn,
tools, task): it starts like the agent's last request.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a5.experiments.summary_call import SERVER_ARGS, SummaryCallRecorder
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

ROUNDS = 8  # the reserve trigger compacts before round 8 of A5·1's script


def _slice(recorder):
    recorder.script["replies"] = recorder.script["replies"][:ROUNDS]
    recorder.record()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a5-4", SummaryCallRecorder, _slice,
                                  extra_args=SERVER_ARGS)


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert check(recorded, load_tokenizer()) == []


def test_the_summary_call_reads_the_agents_prefix_and_every_count_is_predicted_exactly(recorded):
    rows = calculator.analyze(recorded)
    assert all(r.ok for r in rows)
    calls = recorded.session_calls("same-prefix")
    summary = next(i for i, c in enumerate(calls) if c.kind == "compaction")
    # more than the whole first request (system turn, tools, task): older rounds are read too
    assert calls[summary].cached_tokens > calls[1].cached_tokens == calls[0].prompt_tokens
