"""Record a short slice of A8·3's waterfall on the real llama-server (-c 4096 -np 1): the all-naive design's
first three requests (the clock and the file list at the top of the system prompt, the memory re-read
before every call), stopped by a round limit long before the first compaction and the child: the third
request is the first whose minute differs from the first's.

Every request must re-tokenize to the server's count and be predicted exactly by the llama.cpp rule;
the clock line must move and break the prefix near the top.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from chapters.a8.experiments.waterfall import WaterfallRecorder, design_of
from chapters.a8.experiments.whole_task import SERVER_ARGS
from miniagent.loop import Limits
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

ROUNDS = 3  # list, skill, README: the clock moves one minute after two requests (designs.yml)


def _naive_slice(recorder):
    naive = recorder.plan["designs"][0]
    recorder.run(naive["id"], Limits(max_rounds=ROUNDS), design_of(naive, recorder.plan["max_messages"]),
                 info={"fix": naive["fix"]})


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a8-3-waterfall", WaterfallRecorder,
                                  _naive_slice, extra_args=SERVER_ARGS)


def test_every_request_retokenizes_and_is_predicted_exactly(recorded):
    assert check(recorded, load_tokenizer()) == []
    rows = calculator.analyze(recorded)
    assert rows and all(r.ok for r in rows)


def test_the_clock_breaks_the_prefix_near_the_top(recorded):
    calls = recorded.calls
    assert [c.kind for c in calls] == ["model_call"] * ROUNDS
    assert calls[1].cached_tokens == calls[0].prompt_tokens  # the same minute: the whole request is read back
    assert calls[2].cached_tokens < 100  # the minute moved: only the block's first tokens are read
