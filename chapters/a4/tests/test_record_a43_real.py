"""Record a short A4-3 slice on the real llama-server and check it token by token (lesson A4·3).

The first three rounds of the session with the transcript re-rendered and the notes block before it:
each follow-up breaks inside the notes block, before the transcript. Round 2 reads back the system
prompt and the tools (round 1's block said "- none"); round 3 also the one note round 2 already had;
neither reads the transcript. The llama.cpp rule predicts every request.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from chapters.a4.experiments.rewrite_history import RewriteHistoryRecorder
from chapters.a4.figures import rewrite_history as charts
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


def test_every_follow_up_breaks_in_the_notes_block(recorded):
    first, second, third = recorded.calls
    assert first.cached_tokens == 0
    assert 0 < second.cached_tokens < third.cached_tokens
    assert [r.where for r in charts.round_rows(recorded)[1:]] == ["笔记块", "笔记块"]


def test_the_llamacpp_rule_predicts_every_request(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.read, r.measured) for r in rows if r.read != r.measured] == []
