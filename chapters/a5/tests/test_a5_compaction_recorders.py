"""A5·1's triggers and A5·4's summary call, offline: a fake server stands in for llama-server (not a result).

The fake counts each request's tokens the way the server does (the recorded template and tokenizer),
refuses a prompt at or over the 4,096-token slot with llama-server's error body, and answers every
request with a short text (so the summaries are short). What must hold whatever the server answers:
never compacting ends in the refused request; counting messages compacts more often than the
threshold with a reserve, whose agent requests all stay under the window; a summary call that
offers the agent's tools starts with exactly the messages of the request before it.
"""
from __future__ import annotations

import pytest

from chapters.a5.experiments.compaction_triggers import TriggersRecorder
from chapters.a5.experiments.summary_call import SummaryCallRecorder
from chapters.a5.figures.triggers import compactions, requests
from prefixlab.recording.format import load

from chapters.a5.tests.test_a5_recorders import PROVENANCE, counting_server

WINDOW = 4096


def _record(recorder_class, out):
    with counting_server(WINDOW) as server:
        recorder_class(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local",
                       log=lambda line: None).record()
    return load(out)


@pytest.fixture(scope="module")
def triggers(tmp_path_factory):
    return _record(TriggersRecorder, tmp_path_factory.mktemp("a5") / "triggers")


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    return _record(SummaryCallRecorder, tmp_path_factory.mktemp("a5") / "summary")


def test_never_compacting_ends_in_the_refused_request(triggers):
    rows = requests(triggers, "never")
    assert [r.kind for r in rows] == ["agent"] * (len(rows) - 1) + ["refused"]
    assert rows[-1].prompt_tokens >= WINDOW and compactions(triggers, "never") == 0


def test_counting_messages_compacts_more_often_than_the_reserve(triggers):
    assert compactions(triggers, "every-n") > compactions(triggers, "reserve") > 0


def test_with_a_reserve_every_agent_request_stays_within_the_window(triggers):
    info = {s["id"]: s for s in triggers.manifest["sessions"]}["reserve"]
    agent = [r for r in requests(triggers, "reserve") if r.kind == "agent"]
    assert info["budget"] == WINDOW - info["reserve"]
    assert all(r.prompt_tokens < WINDOW for r in agent)
    assert agent[-1].round == len(triggers.session_calls("never")) + 2  # the whole script ran (11 rounds)


def test_the_shipped_summary_call_offers_no_tools_and_the_same_prefix_call_does(triggers, summary):
    separate = [c for c in triggers.session_calls("reserve") if c.kind == "compaction"]
    same = [c for c in summary.session_calls("same-prefix") if c.kind == "compaction"]
    assert separate and same
    assert all(c.request.get("tools") is None for c in separate)
    agent_tools = triggers.session_calls("reserve")[0].request["tools"]
    assert all(c.request["tools"] == agent_tools for c in same)


def test_the_same_prefix_summary_call_starts_with_the_messages_of_the_request_before_it(summary):
    calls = summary.session_calls("same-prefix")
    for i, call in enumerate(calls):
        if call.kind != "compaction":
            continue
        before = calls[i - 1].request["messages"]
        sent = call.request["messages"][:-1]  # the summary request is the last message
        assert sent == before[:len(sent)] and len(sent) < len(before)
