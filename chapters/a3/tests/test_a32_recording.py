"""The shipped A3-2 recording (lesson A3·2), offline: what the lesson says it shows.

Every request predicted exactly is also in tests/test_shipped_recordings.py (all recordings); here:
the sessions are the script's, each on a fresh server; the harness asks the questions the policies
say; the request after a refusal reads the whole request before it; asking in the chat costs requests.
"""
import pytest

from prefixlab.cache import calculator
from prefixlab.recording.format import load

from chapters.a3.approvals import after_refusal, summary
from chapters.a3.paths import A32_RECORDING


@pytest.fixture(scope="module")
def rec():
    return load(A32_RECORDING)


@pytest.fixture(scope="module")
def costs(rec):
    return {c.session: c for c in summary(rec)}


def test_the_recording_is_a32_complete_and_each_session_has_its_own_server(rec):
    assert rec.manifest["experiment"] == "A3-2" and rec.complete
    ids = [s["id"] for s in rec.manifest["sessions"]]
    assert ids == ["in-chat", "auto", "ask", "allow-list", "ask-deny", "never"]
    epochs = {o["session"]: o["epoch"] for o in rec.manifest["order"]}
    assert [epochs[i] for i in ids] == list(range(len(ids)))


def test_every_request_is_predicted_exactly(rec):
    rows = calculator.analyze(rec)
    assert len(rows) == 33 and [r.seq for r in rows if r.read != r.measured] == []


def test_the_policies_asked_what_they_should(costs):
    assert [costs[s].asked for s in ("auto", "ask", "allow-list", "ask-deny", "never")] == [0, 3, 1, 1, 0]
    assert [costs[s].refused for s in ("auto", "ask", "allow-list", "ask-deny", "never")] == [0, 0, 0, 1, 3]


def test_approval_in_the_harness_adds_no_request_and_no_token(costs):
    assert costs["ask"].requests == costs["auto"].requests == 5
    assert costs["ask"].prompt_tokens == costs["auto"].prompt_tokens


def test_asking_in_the_chat_costs_a_request_per_question(costs):
    assert costs["in-chat"].requests == costs["auto"].requests + costs["in-chat"].asked
    assert costs["in-chat"].prompt_tokens > costs["auto"].prompt_tokens


@pytest.mark.parametrize("session", ["ask-deny", "never"])
def test_the_request_after_a_refusal_reads_the_whole_request_before_it(rec, session):
    row = after_refusal(rec, session)
    assert row.read == row.previous_prompt and row.prompt > row.read
