"""The shipped A1 recording (lessons A1·1–A1·3), offline: what the lessons say it shows.

Every request predicted exactly is in tests/test_shipped_recordings.py (all recordings); here: the
naive session is one request without tools; the loop ends on an answer after running the checks
twice; every round reads the whole previous prompt from the cache; with cache_prompt false the
server evaluates every prompt token (timings.prompt_n); the runaway runs stop cleanly on their limit.
"""
import pytest

from miniagent.session import usage_ledger
from prefixlab.cache import calculator
from chapters.a1.figures.loop import round_rows
from chapters.a1.paths import A1_RECORDING, A1_SCRIPT
from prefixlab.recording.policy import load_script


@pytest.fixture(scope="module")
def rec():
    return calculator.prepare(A1_RECORDING).recording


def test_the_recording_is_complete_and_every_session_starts_on_an_empty_cache(rec):
    assert rec.manifest["experiment"] == "A1" and rec.complete
    ids = [s["id"] for s in rec.manifest["sessions"]]
    assert ids == ["naive", "loop", "long", "long-no-cache", "runaway-rounds", "runaway-budget"]
    epochs = [rec.session_calls(s)[0].epoch for s in ids]
    assert epochs == list(range(len(ids)))
    assert all(rec.session_calls(s)[0].cached_tokens == 0 for s in ids)


def test_naive_is_one_request_without_tools_and_the_models_own_answer(rec):
    (call,) = rec.session_calls("naive")
    assert "tools" not in call.request and call.request["max_tokens"] == load_script(A1_SCRIPT)["naive"]["max_tokens"]
    assert call.response["usage"]["completion_tokens"] > 1  # the model wrote it, not a script


def test_the_loop_runs_the_checks_twice_and_ends_on_an_answer(rec):
    rows = round_rows(rec, "loop")
    assert [r.asked.split("(")[0] for r in rows] == ["run_command", "read_file", "edit_file", "run_command", "回答"]
    results = [e["message"]["content"] for e in rec.session_path("loop")
               if e["type"] == "message" and e["message"]["role"] == "tool"]
    assert "3 of 5 checks pass" in results[0] and "5 of 5 checks pass" in results[-1]


@pytest.mark.parametrize("session", ["loop", "long"])
def test_every_round_reads_the_whole_previous_prompt(rec, session):
    rows = round_rows(rec, session)
    assert len(rows) == (5 if session == "loop" else 20)
    assert all(b.prompt_tokens > a.prompt_tokens and b.cached == a.prompt_tokens for a, b in zip(rows, rows[1:]))
    assert all(r.cached == r.predicted for r in rows)


def test_with_the_cache_off_the_server_evaluates_every_prompt_token(rec):
    off, on = round_rows(rec, "long-no-cache"), round_rows(rec, "long")
    assert len(off) == load_script(A1_SCRIPT)["long_no_cache_rounds"]
    assert [r.prompt_tokens for r in off] == [r.prompt_tokens for r in on[:len(off)]]  # the same requests
    assert all(r.cached == r.predicted == 0 and r.evaluated == r.prompt_tokens for r in off)
    assert [e["request"].get("cache_prompt") for e in rec.session_path("long-no-cache")
            if e["type"] == "model_call"] == [False] * len(off)


@pytest.mark.parametrize("session, limit", [("runaway-rounds", "max_rounds"), ("runaway-budget", "max_tokens")])
def test_a_runaway_run_stops_on_its_limit_and_says_why(rec, session, limit):
    path = rec.session_path(session)
    stop = path[-1]
    assert stop["type"] == "stopped" and path[-2]["message"]["role"] == "tool"  # nothing lost
    value = load_script(A1_SCRIPT)["runaway"]["runs"][session][limit]
    ledger = usage_ledger(path)
    assert stop["rounds"] == ledger["calls"] == len(rec.session_calls(session))
    assert stop["tokens"] == ledger["prompt_tokens"] + ledger["completion_tokens"]
    if limit == "max_rounds":
        assert stop["rounds"] == value
    else:
        assert stop["tokens"] >= value > stop["tokens"] - path_tokens_of_last_call(path)


def path_tokens_of_last_call(path):
    usage = [e for e in path if e["type"] == "model_call"][-1]["response"]["usage"]
    return usage["prompt_tokens"] + usage["completion_tokens"]
