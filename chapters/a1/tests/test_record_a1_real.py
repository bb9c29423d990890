"""Record a short slice of A1 on the real llama-server and check it request by request.

The ``loop`` session (five requests: the checks run, a file read and edited, the checks again, the
answer), then two rounds of the runaway policy with the cache off and a round limit of 2: every
round of the loop reads the whole previous prompt, with ``cache_prompt: false`` the server
evaluates every prompt token, the run stops cleanly on its limit, and the llama.cpp rule predicts
every request.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from miniagent.loop import Limits, run_task
from miniagent.session import Session
from miniagent.system_message import FixedPrompt
from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.recording.policy import ScriptedPolicy
from prefixlab.recording.verify import check
from chapters.a1.agent import four_tools
from chapters.a1.experiments.loop import GROUP, NO_CACHE, LoopRecorder
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]


def short_slice(recorder):
    recorder.run("loop")
    workspace, _ = recorder.fresh_copy("runaway")
    session = Session.open(recorder.out / "runaway.jsonl")
    policy = ScriptedPolicy(recorder.model(), [recorder.script["runaway"]["turn"]] * 3, "call_runaway",
                            recorder.clock, **NO_CACHE)
    run_task(recorder.script["task"], model=policy, toolbox=four_tools(workspace), session=session,
             steps=[FixedPrompt(recorder.script["system"])], limits=Limits(max_rounds=2))
    recorder._register({"id": "runaway", "file": "runaway.jsonl", "group": GROUP, "day": 1, "kind": "main"},
                       session, 0, policy.sent_at)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "a1-short", LoopRecorder, short_slice)


def test_prompt_tokens_equal_the_offline_count(recorded):
    assert len(recorded.calls) == 7
    assert check(recorded, load_tokenizer()) == []


def test_each_loop_round_reads_the_previous_prompt_and_the_cache_off_reads_nothing(recorded):
    loop = recorded.session_calls("loop")
    assert [c.cached_tokens for c in loop[1:]] == [c.prompt_tokens for c in loop[:-1]]
    off = recorded.session_calls("runaway")
    assert [c.cached_tokens for c in off] == [0, 0]
    assert [c.timings["prompt_n"] for c in off] == [c.prompt_tokens for c in off]
    assert recorded.session_path("runaway")[-1]["type"] == "stopped"


def test_the_llamacpp_rule_predicts_every_request(recorded):
    rows = calculator.analyze(recorded)
    assert [(r.read, r.measured) for r in rows if r.read != r.measured] == []
