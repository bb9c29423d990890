"""The shipped T11 recording (lesson A6·1), offline: what lesson A6·1 says it shows.

Every request predicted exactly is in test_shipped_recordings.py (all recordings); here: where the
rule is in each request (by block attribution), where each prefix breaks, and the cost of the
AGENTS.md edit -- the facts the lesson's prose and figures are built on.
"""
import pytest

from prefixlab.cache import calculator, composition
from prefixlab.paths import RECORDINGS

T11 = RECORDINGS / "t11-smollm2-llamacpp"


@pytest.fixture(scope="module")
def replay():
    return calculator.prepare(T11)


@pytest.fixture(scope="module")
def rows(replay):
    return {r.seq: r for r in calculator.analyze(replay)}


def rule_blocks(replay, call):
    att = replay.attributions[call.seq]
    return [o.block for o in composition.find(att, replay.recording.manifest["rule"], call.request["messages"])]


def test_the_recording_is_t11_and_predicted_exactly(replay, rows):
    rec = replay.recording
    assert rec.manifest["experiment"] == "T11" and rec.complete
    assert all(r.read == r.measured for r in rows.values())
    assert sum(1 for c in rec.calls if c.kind == "compaction") == 4


def test_rule_in_the_message_is_gone_after_the_compaction_and_on_day_2(replay):
    rec = replay.recording
    day1 = rec.session_calls("message-day1")
    compaction = next(i for i, c in enumerate(day1) if c.kind == "compaction")
    assert all(rule_blocks(replay, c) == ["user#1"] for c in day1[:compaction + 1])  # the summary request too
    # the summary the served model wrote does not hold the rule, so no request after it does
    assert all(rule_blocks(replay, c) == [] for c in day1[compaction + 1:])
    assert all(rule_blocks(replay, c) == [] for c in rec.session_calls("message-day2"))


def test_rule_in_agents_md_is_in_every_request(replay):
    rec = replay.recording
    for sid in ("agents-day1", "agents-day2"):
        assert all(rule_blocks(replay, c) == ["agents_md"] for c in rec.session_calls(sid))


def test_after_a_compaction_the_prefix_holds_up_to_the_summary(replay, rows):
    rec = replay.recording
    for sid in ("message-day1", "agents-day1", "edit-reload-day1"):
        calls = rec.session_calls(sid)
        i = next(i for i, c in enumerate(calls) if c.kind == "compaction")
        summary_call, after = calls[i], calls[i + 1]
        # the summary request has no tools: it breaks right after the system text
        att = replay.attributions[summary_call.seq]
        assert "tools" not in [b.name for b in att.blocks]
        assert rows[summary_call.seq].read == att.block("memory_body").end
        # the first request after it reads system + tools back and breaks at the summary message
        row = rows[after.seq]
        assert row.break_block == "user#1"
        assert row.read == replay.attributions[after.seq].block("user#1").start


def test_an_agents_md_edit_breaks_the_prefix_in_the_agents_md_block(replay, rows):
    rec = replay.recording
    edit = rec.session_info("edit-reload-day1")["agents_md_edit"]["during_round"]
    reload_calls = [c for c in rec.session_calls("edit-reload-day1") if c.kind == "model_call"]
    changed = next(c for c in reload_calls if c.round == edit + 1)
    assert rows[changed.seq].break_block == "agents_md"
    assert rows[changed.seq].next_blocks[:2] == ("memory_header", "memory_body")
    # miniagent's own behaviour: the edit waits for the compaction, where it breaks the same block
    frozen = rec.session_calls("edit-frozen-day1")
    before = [c for c in frozen if c.kind == "model_call" and c.round <= edit + 1]
    assert all(rows[c.seq].break_block != "agents_md" for c in before)
    after = frozen[next(i for i, c in enumerate(frozen) if c.kind == "compaction") + 1]
    assert rows[after.seq].break_block == "agents_md" and rule_blocks(replay, after) == ["agents_md"]
