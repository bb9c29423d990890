"""The shipped T12 recording (lesson A6·3), offline: what the lesson says it shows.

Every request predicted exactly is in test_shipped_recordings.py (all recordings); here: the
inline prompt fills the window and the index does not, the same skills in both, where the prefix
breaks when a skill is added mid-session with the index in the stable or in the volatile band,
and that the two break points differ by exactly the AGENTS.md block.
"""
import json

import pytest

from prefixlab.cache import calculator, composition
from chapters.a6.paths import SKILLS
from prefixlab.paths import RECORDINGS

T12 = RECORDINGS / "t12-smollm2-llamacpp"


@pytest.fixture(scope="module")
def replay():
    return calculator.prepare(T12)


@pytest.fixture(scope="module")
def rows(replay):
    return {r.seq: r for r in calculator.analyze(replay)}


def parts(replay, call):
    return composition.tokens_by_part(replay.attributions[call.seq], call.request["messages"])


def test_the_recording_is_t12_and_predicted_exactly(replay, rows):
    rec = replay.recording
    assert rec.manifest["experiment"] == "T12" and rec.complete
    assert [s["id"] for s in rec.manifest["sessions"]] == [
        "inline-day1", "index-day1", "added-stable-day1", "added-volatile-day1"]
    assert all(r.read == r.measured for r in rows.values())


def test_the_window_is_the_servers_and_the_inline_prompt_fills_it(replay):
    rec = replay.recording
    n_ctx = rec.manifest["provenance"]["server"]["props"]["n_ctx"]
    assert rec.manifest["skills"]["n_ctx"] == n_ctx and "-c" in rec.manifest["provenance"]["server"]["flags"]
    inline = [c.prompt_tokens for c in rec.session_calls("inline-day1")]
    index = [c.prompt_tokens for c in rec.session_calls("index-day1")]
    assert max(inline) == rec.manifest["skills"]["dry_run"]["largest_request"] < n_ctx
    assert rec.manifest["skills"]["dry_run"]["one_more_skill"] >= n_ctx - 1
    assert inline[0] > 4 * index[0]


def test_the_whole_hermes_set_is_far_over_the_window(replay):
    manifest = json.loads((SKILLS / "hermes-manifest.json").read_text(encoding="utf-8"))
    n_ctx = replay.recording.manifest["skills"]["n_ctx"]
    assert sum(s["tokens"] for s in manifest["skills"]) > 50 * n_ctx


def test_the_skills_block_is_the_difference(replay):
    rec = replay.recording
    inline, index = rec.session_calls("inline-day1")[0], rec.session_calls("index-day1")[0]
    p_inline, p_index = parts(replay, inline), parts(replay, index)
    assert {k: v for k, v in p_inline.items() if k not in ("skills", "tools")} == \
           {k: v for k, v in p_index.items() if k not in ("skills", "tools")}
    tools = [t["function"]["name"] for t in index.request["tools"]]
    assert tools[-1] == "read_skill" and "read_skill" not in [t["function"]["name"] for t in inline.request["tools"]]


@pytest.mark.parametrize("variant", ["added-stable", "added-volatile"])
def test_the_added_skill_breaks_the_prefix_in_the_skills_block(replay, rows, variant):
    rec = replay.recording
    added = rec.session_info(f"{variant}-day1")["skill_added"]
    calls = rec.session_calls(f"{variant}-day1")
    first = next(c for c in calls if c.round == added["first_request_with_it"])
    assert rows[first.seq].break_block == "skills"
    assert all(rows[c.seq].break_block != "skills" for c in calls if c.round != first.round)


def test_the_two_break_points_differ_by_the_agents_md_block(replay, rows):
    rec = replay.recording
    cached = {}
    for variant in ("added-stable", "added-volatile"):
        added = rec.session_info(f"{variant}-day1")["skill_added"]
        first = next(c for c in rec.session_calls(f"{variant}-day1") if c.round == added["first_request_with_it"])
        cached[variant] = (first.cached_tokens, parts(replay, first)["agents_md"])
    (stable, agents), (volatile, agents_again) = cached["added-stable"], cached["added-volatile"]
    assert agents == agents_again > 0
    assert volatile - stable == agents


def test_the_evolution_map_can_ask_for_the_skills_part(replay):
    from prefixlab.presenting.evolution import evaluate

    for sid in ("inline-day1", "index-day1"):
        call = replay.recording.session_calls(sid)[0]
        query = {"recording": T12.name, "session": sid, "at": "first", "measure": "part_tokens skills"}
        assert evaluate(query) == parts(replay, call)["skills"] > 0
