"""Record a short slice of A7·4's review on the real llama-server (one slot, no host cache): the
``fresh`` variant only, its change cut to three rounds (read the file, edit it, answer), then a fresh
reviewer child and the fix: 9 requests.

Every request must re-tokenize to the server's count and be predicted exactly by the llama.cpp rule,
the child's included; the parent's first request after the reviewer must read back only what the
reviewer's first request shared with it (system prompt and tools), as in the shipped recording.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a7.experiments.review import SERVER_ARGS, ReviewRecorder
from chapters.a7.figures.review import review_of
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


def _fresh_only(recorder):
    change = recorder.script["change"]
    recorder.script["change"] = [t for t in change if t.get("tool") in ("edit_file",)
                                 or t.get("args", {}).get("path") == "units/convert.py" or "answer" in t]
    recorder.variants = ("fresh",)
    recorder.record()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a7-4", ReviewRecorder, _fresh_only,
                                  extra_args=SERVER_ARGS)


def test_every_request_retokenizes_to_the_servers_count(recorded):
    assert check(recorded, load_tokenizer()) == []


def test_every_count_is_predicted_exactly_and_the_parent_comes_back_cold(recorded):
    rows = calculator.analyze(recorded)
    assert rows and all(r.ok for r in rows)
    review = review_of(recorded, "fresh")
    child_first = next(s for s in review.review if s.request.role == "child")
    assert len(recorded.calls) == 9
    assert review.back.request.measured == child_first.request.measured < review.back.request.prompt_tokens - 300
