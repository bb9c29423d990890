"""The shipped A4-1 recording (lesson A4·1), offline: what the lesson says it shows.

Every request predicted exactly is in tests/test_shipped_recordings.py (all recordings); here: the
sweep is what the recorder says (each probe's p is where the token ids first differ, checked again
with today's tokenizer), an identical resend reads all but one token, a probe reads exactly p, and
the cloud rules read their own rounding of the same prompts.
"""
import pytest

from prefixlab.cache import calculator
from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids
from chapters.a4.experiments.one_token import first_difference
from chapters.a4.paths import A41_RECORDING


@pytest.fixture(scope="module")
def replay():
    return calculator.prepare(A41_RECORDING)


@pytest.fixture(scope="module")
def rows(replay):
    return {r.session: r for r in calculator.analyze(replay)}


def probes(rec):
    return [s for s in rec.manifest["sessions"] if s["probe"]["role"] == "changed"]


def test_the_recording_is_a41_one_slot_and_complete(replay):
    rec = replay.recording
    assert rec.manifest["experiment"] == "A4-1" and rec.complete
    flags = rec.provenance["server"]["flags"]
    assert flags[flags.index("-np") + 1] == "1"
    ids = [s["id"] for s in rec.manifest["sessions"]]
    assert ids[:2] == ["base-1", "base-2"] and len(probes(rec)) >= 20
    assert all(len(rec.session_calls(s)) == 1 for s in ids)


def test_each_probe_differs_from_the_unchanged_prompt_exactly_at_p(replay):
    rec = replay.recording
    template, tokenizer = load_template(), load_tokenizer()

    def ids(session):
        call = rec.session_calls(session)[0]
        return prompt_token_ids(template, tokenizer, call.request["messages"], call.request.get("tools"))

    base = ids("base-1")
    assert len(base) == rec.manifest["sweep"]["prompt_tokens"]
    positions = []
    for info in probes(rec):
        p = info["probe"]["position"]
        changed = ids(info["id"])
        assert first_difference(base, changed) == p
        positions.append(p)
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert positions[0] < 10 and positions[-1] > 0.95 * len(base)  # spread over the whole prompt


def test_resend_reads_all_but_one_and_a_probe_reads_exactly_p(replay, rows):
    n = replay.recording.manifest["sweep"]["prompt_tokens"]
    assert rows["base-1"].measured == 0
    assert rows["base-2"].measured == n - 1
    for info in probes(replay.recording):
        row = rows[info["id"]]
        assert row.measured == row.read == info["probe"]["position"]


def test_the_cloud_rules_round_the_same_prompts_down(replay):
    rec = replay.recording
    anthropic = {r.session: r for r in calculator.analyze(replay, "anthropic")}
    openai = {r.session: r for r in calculator.analyze(replay, "openai")}
    for info in probes(rec):
        p = info["probe"]["position"]
        assert anthropic[info["id"]].read <= p and openai[info["id"]].read <= p
        assert openai[info["id"]].read == 0 or (openai[info["id"]].read - 1024) % 128 == 0
