"""Record one T14 session on the real llama-server and check it token by token (side lesson A6·R).

The session is ``retrieve``: the pattern T14 adds -- notes added to the current user message and
taken out of it at the next request, so the prefix breaks inside the history, right after the
earlier request's own words. Every request must re-tokenize to the server's prompt_tokens and be
predicted exactly by the llama.cpp rule.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from chapters.a6.experiments.memory_vs_retrieval import T14Recorder
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "t14-retrieve", T14Recorder,
                                  lambda recorder: recorder.run_strategy("retrieve"))


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert len(recorded.calls) == 14
    assert check(recorded, load_tokenizer()) == []


def test_every_cached_count_is_predicted_exactly(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.seq, r.read) for r in rows] == [(r.seq, r.measured) for r in rows]
    starts = [r for r in rows if r.round == 1][1:]
    assert starts and all(r.break_block.startswith("template#") for r in starts)
    assert all(0 < r.read < r.prompt_tokens for r in starts)
