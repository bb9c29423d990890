"""T14's recorder (side lesson A6·R), offline: a fake server stands in for llama-server (not a result).

What must hold whatever the server answers: three sessions named after the strategies, each on
its own epoch, the same four requests and scripted turns, and the notes exactly where each
strategy puts them (block attribution names them ``memory`` in the system prompt and in a user
message alike).
"""
from __future__ import annotations

import pytest
import yaml
from fake_server import FakeChatServer, completion

from miniagent.memory import NoteRefused
from miniagent.prompt import MEMORY_HEADER
from miniagent.variants.retrieve_memory import RECALL_HEADER, split_recalled

from prefixlab.cache import composition
from prefixlab.cache.attribution import attribute
from prefixlab.cache.tokenizer import load_template, load_tokenizer
from chapters.a6.paths import T14_DIR
from prefixlab.recording.format import load
from chapters.a6.experiments.memory_vs_retrieval import STRATEGIES, T14Recorder, load_notes, saved_memory

SCRIPT = yaml.safe_load((T14_DIR / "script.yml").read_text(encoding="utf-8"))
NOTES, LIMIT = load_notes()


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    def reply(body):
        return 200, completion({"role": "assistant", "content": "x"}, 100, 0)

    out = tmp_path_factory.mktemp("t14") / "rec"
    provenance = {"server": {"kind": "external", "flags": []}, "model": {"name": "fake"},
                  "chat_template": {"sha256": "x", "text": "x"}, "tokenizer": {"sha256": "x", "path": "x"},
                  "recorder": {}}
    with FakeChatServer(reply) as server:
        T14Recorder(out, lambda: server.url, lambda epoch: epoch + 1, provenance, "local",
                    log=lambda line: None).record()
    return load(out)


def system(call):
    return call.request["messages"][0]["content"]


def users(call):
    return [m["content"] for m in call.request["messages"] if m["role"] == "user"]


def test_three_sessions_one_per_strategy_each_on_a_fresh_server(recording):
    assert [s["id"] for s in recording.manifest["sessions"]] == list(STRATEGIES)
    assert [s["group"] for s in recording.manifest["sessions"]] == list(STRATEGIES)
    assert recording.manifest["experiment"] == "T14"
    assert [sorted({c.epoch for c in recording.session_calls(m)}) for m in STRATEGIES] == [[0], [1], [2]]
    requests = [" ".join(t["user"].split()) for t in SCRIPT["turns"]]
    for info in recording.manifest["sessions"]:
        assert [" ".join(r.split()) for r in info["requests"]] == requests
        assert info.get("top_k") == (None if info["id"] == "frozen" else SCRIPT["top_k"])


def test_the_same_turns_in_every_strategy(recording):
    per_turn = [len(t["replies"]) for t in SCRIPT["turns"]]
    rounds = [r for n in per_turn for r in range(1, n + 1)]
    for mode in STRATEGIES:
        calls = recording.session_calls(mode)
        assert [c.round for c in calls] == rounds
        assistants = [[m for m in c.request["messages"] if m["role"] in ("assistant", "tool")] for c in calls]
        assert assistants == [[m for m in c.request["messages"] if m["role"] in ("assistant", "tool")]
                              for c in recording.session_calls("frozen")]


def test_frozen_carries_every_note_in_a_system_prompt_that_never_changes(recording):
    calls = recording.session_calls("frozen")
    assert len({system(c) for c in calls}) == 1
    assert all(note in system(calls[0]) for note in NOTES)


def test_select_changes_the_system_prompt_per_request_and_never_the_messages(recording):
    calls = recording.session_calls("select")
    starts = [i for i, c in enumerate(calls) if c.round == 1]
    turn_of = [sum(1 for s in starts if s <= i) for i in range(len(calls))]
    for i, c in enumerate(calls):
        assert system(c) == system(calls[starts[turn_of[i] - 1]])  # fixed within a turn
        assert MEMORY_HEADER in system(c) and RECALL_HEADER not in str(c.request["messages"])
        picked = system(c).split(f"{MEMORY_HEADER}\n\n")[1].split("\n§\n")
        assert 1 <= len(picked) <= SCRIPT["top_k"] and set(picked) <= set(NOTES)
    assert len({system(calls[s]) for s in starts}) == len(starts)  # every request picked other notes


def test_retrieve_puts_the_notes_in_the_current_request_only(recording):
    calls = recording.session_calls("retrieve")
    assert len({system(c) for c in calls}) == 1 and MEMORY_HEADER not in system(calls[0])
    for c in calls:
        carrying = [u for u in users(c) if split_recalled(u) is not None]
        assert carrying == [users(c)[-1]]  # the current request, and only it
        notes = split_recalled(carrying[0])[1].split("\n§\n")
        assert 1 <= len(notes) <= SCRIPT["top_k"] and set(notes) <= set(NOTES)


def test_attribution_names_the_notes_memory_wherever_they_are(recording):
    template, tokenizer = load_template(), load_tokenizer()
    for mode in STRATEGIES:
        call = recording.session_calls(mode)[-1]
        att = attribute(template, tokenizer, call.request["messages"], call.request.get("tools"))
        parts = composition.tokens_by_part(att, call.request["messages"])
        assert parts["memory"] > 0 and sum(parts.values()) == len(att)
        body = att.block("memory_body")
        assert body.kind == ("message" if mode == "retrieve" else "system")
        if mode == "retrieve":
            assert att.text[body.char_start:body.char_end] == split_recalled(users(call)[-1])[1]


def test_a_note_the_store_refuses_stops_the_recording(tmp_path):
    with pytest.raises(NoteRefused, match="Memory is full"):
        saved_memory(tmp_path / "MEMORY.md", NOTES, 1000)
    with pytest.raises(NoteRefused, match="'§'"):
        saved_memory(tmp_path / "other" / "MEMORY.md", ["a\n§\nb"], LIMIT)
