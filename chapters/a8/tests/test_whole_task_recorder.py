"""A8·3's recorder, offline against a fake server: the whole task uses a skill, the memory, a compaction
and a child; the budget variant stops cleanly before the request past its budget; the bill of what it
wrote adds up to every response's usage, the child's file included."""
import json
from pathlib import Path

import pytest

from chapters.a8.experiments.whole_task import WholeTaskRecorder
from prefixlab.paths import CHAT_TEMPLATE, TOKENIZER
from prefixlab.presenting import bill
from prefixlab.recording.recorder import base_provenance

from fake_server import FakeChatServer, completion

PROMPT = 1_500  # what the fake server reports for every request


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("a8-3") / "rec"
    reply = completion({"role": "assistant", "content": "summary"}, prompt_tokens=PROMPT, cached=PROMPT - 100)
    with FakeChatServer([(200, reply)] * 80) as srv:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER) | {"server": {"kind": "external", "flags": []}}
        recorder = WholeTaskRecorder(out, lambda: srv.url, lambda epoch: epoch + 1, provenance, "local")
        manifest = recorder.record()
    return out, manifest


def entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_whole_task_uses_skills_memory_a_compaction_and_a_child(recorded):
    out, manifest = recorded
    assert [(s["id"], s["kind"]) for s in manifest["sessions"]][:2] == [("whole", "main"), ("whole-child1", "child")]
    whole = entries(out / "whole.jsonl")
    types = [e["type"] for e in whole]
    assert "compaction" in types and "child" in types
    first = next(e for e in whole if e["type"] == "model_call")["request"]["messages"][0]["content"]
    assert "# Skills" in first and "python tools/check.py, never pytest" in first  # the index and the memory
    calls = [e for e in whole if e["type"] == "model_call"]
    tools_called = {c["function"]["name"] for e in whole if e["type"] == "message"
                    for c in e["message"].get("tool_calls") or []}
    assert {"read_skill", "remember", "spawn_agent"} <= tools_called and len(calls) > 5


def test_the_budget_stops_the_same_task_before_going_over(recorded):
    out, manifest = recorded
    budget = entries(out / "budget.jsonl")
    stop = budget[-1]
    assert stop["type"] == "stopped" and "budget" in stop["reason"]
    sent = [e for e in budget if e.get("type") in ("model_call", "compaction") and "response" in e]
    used = sum(e["response"]["usage"]["prompt_tokens"] + e["response"]["usage"]["completion_tokens"] for e in sent)
    assert stop["tokens"] == used and used - (PROMPT + 1) < manifest["sessions"][2]["budget"] <= used


def test_the_bill_of_the_recording_adds_up(recorded):
    out, _ = recorded
    (root,) = bill.bill(out / "whole.jsonl").roots
    assert len(root.children) == 1 and root.children[0].mode == "fresh" and root.all_notes() == []
    responses = [e for f in [out / "whole.jsonl", *sorted((out / "whole.children").glob("*.jsonl"))]
                 for e in entries(f) if e.get("type") in ("model_call", "compaction") and "response" in e]
    assert root.total.calls == len(responses) and root.total.prompt == PROMPT * len(responses)
