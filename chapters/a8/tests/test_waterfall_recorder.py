"""A8·3's waterfall recorder, offline against a fake server: five designs of the same task, each changing
one chapter's choice; what each design sends shows its choices (the clock at the top, a summary request
with or without tools, the memory refreshed, a forked child); bad design files are refused."""
import json
from pathlib import Path

import pytest
import yaml

from chapters.a8.experiments import waterfall
from chapters.a8.experiments.waterfall import WaterfallRecorder, load_designs
from chapters.a8.experiments.whole_task import Design
from prefixlab.paths import CHAT_TEMPLATE, DATA, TOKENIZER
from prefixlab.recording.recorder import base_provenance

from fake_server import FakeChatServer, completion

PROMPT = 1_500


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("a8-3-waterfall") / "rec"
    reply = completion({"role": "assistant", "content": "summary"}, prompt_tokens=PROMPT, cached=PROMPT - 100)
    with FakeChatServer([(200, reply)] * 200) as srv:
        provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER) | {"server": {"kind": "external", "flags": []}}
        recorder = WaterfallRecorder(out, lambda: srv.url, lambda epoch: epoch + 1, provenance, "local")
        manifest = recorder.record()
    return out, manifest


def entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def requests(out: Path, file: str) -> list[dict]:
    return [e["request"] for e in entries(out / file) if e["type"] in ("model_call", "compaction") and "request" in e]


def test_five_designs_each_on_its_own_server_with_its_child(recorded):
    _, manifest = recorded
    mains = [s for s in manifest["sessions"] if s["kind"] == "main"]
    assert [s["id"] for s in mains] == ["all-naive", "plus-a4", "plus-a5", "plus-a6", "plus-a7"]
    assert [s["fix"] for s in mains] == [None, "a4", "a5", "a6", "a7"]
    children = [s for s in manifest["sessions"] if s["kind"] == "child"]
    assert [(c["child_of"]["session"], c["child_of"]["mode"]) for c in children] == [
        ("all-naive", "fresh"), ("plus-a4", "fresh"), ("plus-a5", "fresh"), ("plus-a6", "fresh"), ("plus-a7", "fork")]
    epochs = {o["session"]: o["epoch"] for o in manifest["order"]}
    assert [epochs[s["id"]] for s in mains] == [0, 1, 2, 3, 4]


def test_all_naive_sends_the_clock_first_and_its_summaries_without_tools(recorded):
    out, _ = recorded
    sent = requests(out, "all-naive.jsonl")
    systems = [r["messages"][0]["content"] for r in sent]
    assert all(s.startswith("# Environment\n\nTime: 2026-12-04 09:") for s in systems)
    assert len({s.split("\n")[2] for s in systems}) > 3  # the minute moves
    summaries = [e for e in entries(out / "all-naive.jsonl") if e["type"] == "compaction"]
    assert len(summaries) >= 3 and all("tools" not in e["request"] for e in summaries)


def test_the_fixed_design_sends_the_date_only_a_prefix_summary_and_forks(recorded):
    out, _ = recorded
    sent = requests(out, "plus-a7.jsonl")
    first = sent[0]["messages"][0]["content"]
    assert first.endswith("# Environment\n\nDate: Friday, December 4, 2026") and "Time:" not in first
    summaries = [e for e in entries(out / "plus-a7.jsonl") if e["type"] == "compaction"]
    assert summaries and all(e["request"]["tools"] == sent[0]["tools"] for e in summaries)
    child = next(e for e in entries(out / "plus-a7.jsonl") if e["type"] == "child")
    child_first = requests(out, child["path"])[0]
    assert child_first["messages"][1]["content"] == sent[0]["messages"][1]["content"]  # the parent's task: a fork


def test_refresh_puts_the_note_in_the_system_prompt_at_once_frozen_does_not(recorded):
    out, _ = recorded
    note = "kelvin_to_rankine multiplies by 1.8"
    a5 = [r["messages"][0]["content"] for r in requests(out, "plus-a5.jsonl")]
    a6 = [r["messages"][0]["content"] for r in requests(out, "plus-a6.jsonl")]
    assert note in a5[-1] and not any(note in s for s in a6)


def test_the_naive_n_is_a5_1s():
    a5 = yaml.safe_load((DATA / "a5" / "triggers" / "script.yml").read_text(encoding="utf-8"))
    assert load_designs()["max_messages"] == a5["max_messages"]


def test_a_design_that_changes_two_chapters_at_once_is_refused(tmp_path):
    plan = yaml.safe_load(waterfall.DESIGNS_FILE.read_text(encoding="utf-8"))
    plan["designs"][1]["memory"] = "frozen"  # plus-a4 would change A6's choice too
    bad = tmp_path / "designs.yml"
    bad.write_text(yaml.safe_dump(plan), encoding="utf-8")
    with pytest.raises(ValueError, match="plus-a4"):
        load_designs(bad)
    del plan["designs"][0]["child"]
    bad.write_text(yaml.safe_dump(plan), encoding="utf-8")
    with pytest.raises(ValueError, match="does not say child"):
        load_designs(bad)


def test_bad_design_values_are_refused():
    with pytest.raises(ValueError, match="max_messages"):
        Design(trigger="every-n")
    with pytest.raises(ValueError, match="unknown memory"):
        Design(memory="sometimes")
    with pytest.raises(ValueError, match="child mode"):
        Design(child="clone")
    with pytest.raises(ValueError, match="environment block"):
        Design(environment="clock-middle")


def test_a_design_with_an_environment_block_needs_a_recorder_with_a_clock(tmp_path):
    from chapters.a8.experiments.whole_task import WholeTaskRecorder
    from miniagent.loop import Limits

    provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER) | {"server": {"kind": "external", "flags": []}}
    recorder = WholeTaskRecorder(tmp_path / "rec", lambda: "http://127.0.0.1:9", lambda e: e + 1, provenance, "local")
    with pytest.raises(TypeError, match="no clock"):
        recorder.run("whole", Limits(max_rounds=1), Design(environment="clock-top"))
