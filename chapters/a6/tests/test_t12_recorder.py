"""T12's recorder (lesson A6·3), offline: a fake server stands in for llama-server (not a result).

What must hold whatever the server answers: the four sessions with the names the lesson reads,
the skills in each system prompt as the variant says (every text inline, or the index), the
inline subset the largest that keeps every request under the window, read_skill only where
there is an index, and the skill the agent writes showing up in the index of the next request,
after the base prompt or after AGENTS.md.
"""
from __future__ import annotations

import pytest
import yaml
from fake_server import FakeChatServer, completion

from miniagent.prompt import AGENTS_HEADER
from miniagent.skills import INDEX_INTRO, SKILLS_HEADER
from prefixlab.cache import composition
from prefixlab.cache.attribution import attribute, split_system_prompt
from prefixlab.cache.tokenizer import load_template, load_tokenizer
from chapters.a6.paths import T12_DIR
from prefixlab.recording.format import load
from chapters.a6.experiments.skills import VARIANTS, T12Recorder, TokenCounter, skill_pool, variant_turns

SCRIPT = yaml.safe_load((T12_DIR / "script.yml").read_text(encoding="utf-8"))
N_CTX = 8192


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    out = tmp_path_factory.mktemp("t12") / "rec"
    provenance = {"server": {"kind": "external", "flags": [], "props": {"n_ctx": N_CTX}}, "model": {"name": "fake"},
                  "chat_template": {"sha256": "x", "text": "x"}, "tokenizer": {"sha256": "x", "path": "x"},
                  "recorder": {}}
    with FakeChatServer(lambda body: (200, completion({"role": "assistant", "content": "x"}, 100, 0))) as server:
        T12Recorder(out, lambda: server.url, lambda epoch: epoch + 1, provenance, "local",
                    log=lambda line: None).record()
    return load(out)


def system(call):
    return call.request["messages"][0]["content"]


def test_sessions_names_and_epochs(recording):
    assert [s["id"] for s in recording.manifest["sessions"]] == [
        "inline-day1", "index-day1", "added-stable-day1", "added-volatile-day1"]
    assert recording.manifest["experiment"] == "T12"
    assert sorted({c.epoch for c in recording.calls}) == list(range(len(VARIANTS)))
    for s in recording.manifest["sessions"]:
        assert s["group"] == "frozen" and s["kind"] == "main" and s["skills"]["n_ctx"] == N_CTX
        assert s["skills"]["needed"] == SCRIPT["needed_skill"] in s["skills"]["names"]


def test_inline_is_the_largest_subset_that_fits(recording):
    skills = recording.manifest["skills"]
    n = len(skills["inline_subset"])
    assert skills["inline_subset"] == skills["pool"][:n] and 0 < n < len(skills["pool"])
    assert skills["dry_run"]["largest_request"] + 1 < N_CTX <= skills["dry_run"]["one_more_skill"] + 1
    names = recording.session_info("inline-day1")["skills"]["names"]
    assert len(names) == n and names == recording.session_info("index-day1")["skills"]["names"]


def test_the_dry_run_counts_what_the_recorded_requests_hold(recording):
    tokens = [len(c.request["messages"]) for c in recording.session_calls("inline-day1")]
    assert len(tokens) == len(variant_turns(SCRIPT, "inline"))
    counter = TokenCounter()
    for call in recording.session_calls("inline-day1"):
        counter.complete(call.request["messages"], call.request.get("tools"))
    assert max(counter.counts) == recording.manifest["skills"]["dry_run"]["largest_request"]


def test_inline_carries_every_text_and_no_read_skill(recording):
    first = recording.session_calls("inline-day1")[0]
    for path in recording.manifest["skills"]["inline_subset"]:
        text = (skill_pool()[0].parents[2] / path).read_text(encoding="utf-8")
        assert text.strip() in system(first)
    assert "read_skill" not in [t["function"]["name"] for t in first.request["tools"]]
    assert all(t.get("tool") != "read_skill" for t in variant_turns(SCRIPT, "inline"))


def test_index_lists_every_skill_and_the_model_reads_the_one_it_needs(recording):
    calls = recording.session_calls("index-day1")
    text = system(calls[0])
    names = recording.session_info("index-day1")["skills"]["names"]
    assert f"{SKILLS_HEADER}\n\n{INDEX_INTRO}" in text
    assert all(f"- {name}: " in text for name in names)
    assert calls[0].request["tools"][-1]["function"]["name"] == "read_skill"
    body = calls[1].request["messages"][-1]["content"]  # the tool result of round 1
    assert body.startswith("# Write a changelog entry")


@pytest.mark.parametrize("variant, at", [("added-stable", "stable"), ("added-volatile", "volatile")])
def test_the_written_skill_is_in_the_next_request_and_where_the_index_sits(recording, variant, at):
    info = recording.session_info(f"{variant}-day1")
    added = info["skill_added"]
    assert added == {"name": "signed-numbers", "path": "skills/signed-numbers/SKILL.md", "by": "write_file",
                     "during_round": 4, "first_request_with_it": 5}
    assert info["skills"]["at"] == at
    calls = recording.session_calls(f"{variant}-day1")
    assert [f"- {added['name']}: " in system(c) for c in calls] == [c.round >= 5 for c in calls]
    text = system(calls[-1])
    assert (text.index(SKILLS_HEADER) > text.index(AGENTS_HEADER)) == (at == "volatile")
    blocks = [name for name, _ in split_system_prompt(text)]
    assert blocks.index("skills") == (1 if at == "stable" else 2)


def test_the_skills_block_is_its_own_part(recording):
    template, tok = load_template(), load_tokenizer()
    parts = {}
    for sid in ("inline-day1", "index-day1", "added-volatile-day1"):
        call = recording.session_calls(sid)[0]
        att = attribute(template, tok, call.request["messages"], call.request.get("tools"))
        parts[sid] = composition.tokens_by_part(att, call.request["messages"])
    assert parts["inline-day1"]["skills"] > 10 * parts["index-day1"]["skills"] > 0
    assert parts["index-day1"]["skills"] == parts["added-volatile-day1"]["skills"]
    assert parts["index-day1"]["agents_md"] == parts["added-volatile-day1"]["agents_md"] > 0
    assert parts["inline-day1"]["base"] == parts["index-day1"]["base"]
