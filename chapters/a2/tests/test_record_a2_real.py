"""Record short slices of A2·1 and A2·2 on the real llama-server: the retry session's first three
requests (the malformed reply, the retry with one call, an answer), and the first two requests with each tool set.

Every request must re-tokenize to the server's count and be predicted exactly by the llama.cpp rule;
the retry reads the whole request before it from the cache (n−1 at most), and the tool block is the only
difference between the tool-set sessions' first requests.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a2.experiments.retry import RetryRecorder
from chapters.a2.experiments.tool_sets import ToolSetRecorder
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


def _retry_slice(recorder):
    recorder.variants = ("text-retry",)
    recorder.script["text-retry"] = recorder.script["text-retry"][:2] + [{"answer": "done"}]
    recorder.record()


def _sets_slice(recorder):
    recorder.script["answer"] = "done"
    recorder.script["turns"] = {name: turns[:1] for name, turns in recorder.script["turns"].items()}
    recorder.record()


@pytest.fixture(scope="module")
def retry(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a2-1", RetryRecorder, _retry_slice)


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a2-2", ToolSetRecorder, _sets_slice)


def test_the_retry_reads_the_request_before_it(retry):
    assert check(retry, load_tokenizer()) == []
    assert all(r.ok for r in calculator.analyze(retry))
    first, again = retry.session_calls("text-retry")[:2]
    assert first.prompt_tokens - 1 <= again.cached_tokens <= first.prompt_tokens


def test_each_tool_set_is_predicted_exactly(sets):
    assert check(sets, load_tokenizer()) == []
    assert all(r.ok for r in calculator.analyze(sets))
    firsts = {name: sets.session_calls(name)[0].prompt_tokens for name in ("bash", "pi", "fifteen")}
    assert firsts["bash"] < firsts["pi"] < firsts["fifteen"]
