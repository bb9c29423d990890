"""A2's four-ways recorder, offline: a fake server stands in for llama-server (not a result).

What must hold whatever the server answers: every way sends the A1 live recording's first request (the
same messages and tools), with only its own field added; the text way sends a reply that tried to call
a tool back once with miniagent's correction, and never more.
"""
from __future__ import annotations

import json

from fake_server import FakeChatServer, completion

from chapters.a2.experiments import four_ways
from chapters.a2.paths import LIVE_RECORDING
from miniagent.call_retry import CORRECTION
from prefixlab.paths import CHAT_TEMPLATE
from prefixlab.paths import TOKENIZER as TOKENIZER_PATH
from prefixlab.recording.format import load
from prefixlab.recording.recorder import base_provenance

PROVENANCE = base_provenance(CHAT_TEMPLATE, TOKENIZER_PATH) | {"server": {"kind": "external", "flags": []},
                                                               "model": {"name": "fake"}}
BROKEN = '{"name": "run_command", "arguments": {"command": "python tools/check.py"}'  # a brace missing


def a1_first_request() -> dict:
    with open(LIVE_RECORDING / "miniagent-prompt.jsonl", encoding="utf-8") as f:
        return next(e["request"] for e in map(json.loads, f) if e["type"] == "model_call")


def record(tmp_path, runs=2):
    def reply(body):
        if "response_format" in body:
            return 200, completion({"role": "assistant", "content": json.dumps(
                {"tool": "run_command", "arguments": {"command": "python tools/check.py"}})})
        return 200, completion({"role": "assistant", "content": BROKEN})

    out = tmp_path / "rec"
    with FakeChatServer(reply) as server:
        recorder = four_ways.FourWaysRecorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE,
                                              "local", log=lambda line: None)
        recorder.manifest["runs"] = runs
        recorder.record()
    return load(out)


def test_every_way_sends_a1s_first_request_with_only_its_own_field(tmp_path):
    rec, a1 = record(tmp_path), a1_first_request()
    assert [s["id"] for s in rec.manifest["sessions"]] == [four_ways.session_id(seed, way) for seed in (1, 2)
                                                           for way in four_ways.WAYS]
    own = {"auto": set(), "required": {"tool_choice"}, "schema": {"response_format"}, "text": set()}
    for info in rec.manifest["sessions"]:
        first = rec.session_calls(info["id"])[0].request
        assert first["messages"] == a1["messages"] and first["tools"] == a1["tools"]
        assert set(first) - set(a1) == own[info["variant"]] | {"seed"}
        assert first["seed"] == info["seed"] and first["temperature"] == four_ways.TEMPERATURE


def test_the_text_way_retries_once_and_the_others_never(tmp_path):
    rec = record(tmp_path, runs=1)
    counts = {info["variant"]: len(rec.session_calls(info["id"])) for info in rec.manifest["sessions"]}
    assert counts == {"auto": 1, "required": 1, "schema": 1, "text": 2}
    second = rec.session_calls("text-01")[1].request["messages"]
    assert second[-2] == {"role": "assistant", "content": BROKEN} and second[-1]["content"] == CORRECTION


def test_the_counts_read_the_replies_as_the_loop_would(tmp_path):
    from chapters.a2.four_ways import summary, valid_arguments

    record(tmp_path, runs=2)
    table = summary(tmp_path / "rec")
    assert [table["schema"][k] for k in ("runs", "well_formed", "schema_valid", "right_tool")] == [2, 2, 2, 2]
    for way in ("auto", "required", "text"):  # the broken text is no call, even after the retry
        assert (table[way]["runs"], table[way]["well_formed"]) == (2, 0)
    assert table["text"]["requests"] == 4 and table["auto"]["requests"] == 2
    tools = [{"function": {"name": "read_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]
    call = {"function": {"name": "read_file", "arguments": '{"path": 3}'}}
    assert not valid_arguments(call, tools)
    assert valid_arguments({"function": {"name": "read_file", "arguments": '{"path": "a"}'}}, tools)
    assert not valid_arguments({"function": {"name": "nope", "arguments": "{}"}}, tools)


def test_the_shipped_recording_holds_whole_seeds_and_its_prompts_are_one_prompt():
    from chapters.a2.four_ways import summary
    from chapters.a2.paths import FOUR_WAYS_RECORDING

    table = summary(FOUR_WAYS_RECORDING)
    assert len({row["runs"] for row in table.values()}) <= 2  # a chunk may stop inside a seed, by one way at most
    assert all(row["runs"] >= 1 for row in table.values())
    # every way's first request is the same prompt: the schema and tool_choice add no prompt tokens
    assert len({tokens for row in table.values() for tokens in row["prompt_tokens"]}) == 1
