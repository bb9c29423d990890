"""Record a short A4-2 slice on the real llama-server and check it token by token (lesson A4·2).

The first three rounds of day 1 with the time-and-files block at the top: round 2 goes out in the
same minute as round 1 (the whole previous request is read back), round 3 in a new minute (the
prefix breaks at the time line, a few dozen tokens in); the llama.cpp rule predicts every request.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.verify import check
from chapters.a4.experiments.volatile_top import ScriptClock, VolatileTopRecorder, instant
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

ROUNDS = 3


def three_rounds_at_the_top(recorder):
    day1 = recorder.script["day1"]
    recorder.script = {**recorder.script, "day1": {**day1, "turns": day1["turns"][:ROUNDS]}}
    recorder.manifest["between_days_s"] = 0
    workspace, memory = recorder.fresh_copy("clock-top")
    recorder.run_day("clock-top", "day1", workspace, memory, ScriptClock(instant(day1["date"], "09:00:00")))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a4-2-short", VolatileTopRecorder,
                                  three_rounds_at_the_top)


def test_prompt_tokens_equal_the_offline_count(recorded):
    assert len(recorded.calls) == ROUNDS
    assert check(recorded, load_tokenizer()) == []


def test_same_minute_reads_everything_and_a_new_minute_breaks_at_the_time_line(recorded):
    first, same, new = recorded.calls
    assert first.cached_tokens == 0
    assert same.cached_tokens == first.prompt_tokens
    assert 0 < new.cached_tokens < 40  # the template's header and "# Environment ... Time: 2026-12-01 09:0"


def test_the_llamacpp_rule_predicts_every_request(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.read, r.measured) for r in rows if r.read != r.measured] == []
