"""Record a short A4-3 slice on the real llama-server and check it token by token (lesson A4·3).

The first three rounds of the session with the transcript re-rendered and the notes block before it:
each follow-up breaks where the notes begin, so rounds 2 and 3 read back the same number of tokens
(the system prompt and the tools), fewer than round 1 sent; the llama.cpp rule predicts every request.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from chapters.a4.experiments.rewrite_history import RewriteHistoryRecorder
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

ROUNDS = 3


def three_rounds_with_notes(recorder):
    recorder.script = {**recorder.script, "turns": recorder.script["turns"][:ROUNDS]}
    recorder.run_shape("transcript-notes")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a4-3-short", RewriteHistoryRecorder,
                                  three_rounds_with_notes)


def test_prompt_tokens_equal_the_offline_count(recorded):
    assert len(recorded.calls) == ROUNDS
    assert check(recorded, load_tokenizer()) == []


def test_every_follow_up_breaks_where_the_notes_begin(recorded):
    first, second, third = recorded.calls
    assert first.cached_tokens == 0
    assert 0 < second.cached_tokens == third.cached_tokens < first.prompt_tokens


def test_the_llamacpp_rule_predicts_every_request(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.read, r.measured) for r in rows if r.read != r.measured] == []
