"""Record A5·1 on the real llama-server (-c 2048 -np 1) and check it request by request.

The whole experiment is short (five requests): the session grows until the server refuses a
request, then its fork with the last result cut. Every request must re-tokenize to the server's
count (the refused one to its ``n_prompt_tokens``) and be predicted exactly by the llama.cpp rule:
the refusal predicted refused, and the fork's cached count read from the prompt the slot kept.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a5.experiments.context_limit import SERVER_ARGS, OverflowRecorder
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a5-1", OverflowRecorder,
                                  lambda recorder: recorder.record(), extra_args=SERVER_ARGS)


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert check(recorded, load_tokenizer()) == []


def test_the_refusal_and_every_cached_count_are_predicted_exactly(recorded):
    rows = calculator.analyze(recorded)
    assert [r.refused is not None for r in rows] == [False, False, False, True, False]
    assert all(r.ok for r in rows)
    retry = rows[-1]
    assert retry.read == recorded.calls[2].prompt_tokens  # the slot kept the last served prompt
