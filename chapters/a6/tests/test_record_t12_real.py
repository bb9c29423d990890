"""Record one T12 session on the real llama-server and check it token by token (lesson A6·3).

The session is ``added-volatile-day1``: an index of skills in the system prompt, a skill body read
with ``read_skill``, and a skill the agent writes mid-session, which changes the index of the next
request right after AGENTS.md. Every request must re-tokenize to the server's prompt_tokens, be
predicted exactly by the llama.cpp rule, and give the same numbers as the shipped recording.

Runs only with PREFIXLAB_REAL_SERVER=1 (``make test-server``).
"""
import os

import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_tokenizer
from prefixlab.paths import RECORDINGS
from prefixlab.recording.format import load
from chapters.a6.experiments.skills import T12Recorder, skill_pool
from prefixlab.recording.verify import check
from real_server import record_on_fresh_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(os.environ.get("PREFIXLAB_REAL_SERVER") != "1",
                                 reason="set PREFIXLAB_REAL_SERVER=1 to use the real llama-server")]

SHIPPED = RECORDINGS / "t12-smollm2-llamacpp"
SESSION = "added-volatile-day1"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    shipped = load(SHIPPED)
    n = len(shipped.manifest["skills"]["inline_subset"])

    def run(recorder):
        session, names, policy = recorder.run("added-volatile", skill_pool()[:n], recorder.model())
        recorder._register({"id": SESSION, "file": f"{SESSION}.jsonl", "group": "frozen", "day": 1, "kind": "main",
                            "variant": "added-volatile", "skill_added": recorder.skill_added("added-volatile")},
                           session, 0, policy.sent_at)

    return record_on_fresh_server(tmp_path_factory.mktemp("real") / "t12-short", T12Recorder, run), shipped


def test_every_request_retokenizes_to_the_servers_count(recorded):
    rec, _ = recorded
    assert check(rec, load_tokenizer()) == []


def test_every_cached_count_is_predicted_exactly_and_the_break_is_in_the_skills_block(recorded):
    rec, _ = recorded
    rows = calculator.analyze(rec)
    assert [(r.seq, r.read) for r in rows] == [(r.seq, r.measured) for r in rows]
    first = rec.session_info(SESSION)["skill_added"]["first_request_with_it"]
    assert [r.round for r in rows if r.break_block == "skills"] == [first]


def test_the_numbers_are_the_shipped_ones(recorded):
    rec, shipped = recorded
    mine = [(c.round, c.prompt_tokens, c.cached_tokens) for c in rec.session_calls(SESSION)]
    theirs = [(c.round, c.prompt_tokens, c.cached_tokens) for c in shipped.session_calls(SESSION)]
    assert mine == theirs
