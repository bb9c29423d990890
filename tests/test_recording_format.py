"""The recorder and the recording format, offline (a fake server stands in for llama-server)."""
import json
import shutil

import pytest

from chapters.a6.experiments.memory_timing import T10Recorder
from prefixlab.paths import CHAT_TEMPLATE, RECORDINGS, TOKENIZER
from prefixlab.recording.format import RecordingError, load
from prefixlab.recording.recorder import base_provenance

from fake_server import FakeChatServer, completion
from helpers import pinned_unittest_clock


def _reply(body):
    # Report a cache hit only for requests after the first, like a real server would.
    n = len(json.dumps(body["messages"])) // 4
    return 200, completion({"role": "assistant", "content": "x"}, prompt_tokens=n, cached=n - 10)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    out = tmp_path_factory.mktemp("rec") / "t10"
    provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER)
    provenance["server"], provenance["model"] = {"kind": "external", "flags": []}, {"name": "fake"}
    with pinned_unittest_clock(), FakeChatServer(_reply) as srv:
        epochs = []
        recorder = T10Recorder(out, lambda: srv.url, lambda e: epochs.append(e) or e + 1, provenance, "fake",
                            log=lambda line: None)
        recorder.record()
    return out


@pytest.fixture
def copy(recorded, tmp_path):
    target = tmp_path / "t10"
    shutil.copytree(recorded, target)
    return target


def test_recording_has_all_sessions_in_global_order(recorded):
    rec = load(recorded)
    kinds = [(s["id"], s["kind"]) for s in rec.manifest["sessions"]]
    assert kinds[:5] == [("refresh-day1", "main"), ("refresh-day2", "main"), ("frozen-day1", "main"),
                         ("frozen-day2", "main"), ("frozen-day1-fork", "fork")]
    day1 = rec.session_calls("frozen-day1")
    assert len(day1) == 10 and [c.round for c in day1] == list(range(1, 11))
    cf = [s for s in rec.manifest["sessions"] if s["kind"] == "counterfactual"]
    assert [s["k"] for s in cf] == list(range(1, 10))
    assert [c.seq for c in rec.calls] == list(range(len(rec.calls)))
    assert rec.session_calls("counterfactual-k3")[0].epoch == 3  # a fresh server per k
    live = rec.session_info("live-frozen-day1")
    assert live["kind"] == "live" and rec.session_calls("live-frozen-day1")[0].epoch == 10
    assert rec.session_calls("live-frozen-day1")[0].request["max_tokens"] > 1  # the model really answers


def test_the_later_designs_come_last_each_on_a_fresh_server(recorded):
    rec = load(recorded)
    later = ["append-day1", "append-day2", "after-tools-day1", "after-tools-day2"]
    assert [s["id"] for s in rec.manifest["sessions"]][-4:] == later
    assert [(s["group"], s["day"], s["kind"]) for s in rec.manifest["sessions"][-4:]] == [
        ("append", 1, "main"), ("append", 2, "main"), ("after-tools", 1, "main"), ("after-tools", 2, "main")]
    assert [c.session for c in rec.calls[-30:]] == [s for s in later for _ in range(10 if "day1" in s else 5)]
    live = rec.session_calls("live-frozen-day1")[0].epoch
    epochs = {s: {c.epoch for c in rec.session_calls(s)} for s in later}
    assert epochs == {"append-day1": {live + 1}, "append-day2": {live + 1},
                      "after-tools-day1": {live + 2}, "after-tools-day2": {live + 2}}


def test_offline_the_recorder_sends_the_shipped_requests_byte_for_byte(recorded):
    # The assistant turns come from the script, so every request but the live run's later ones is
    # fixed by the code: the same code must send what the shipped recording holds, in every group.
    rec, shipped = load(recorded), load(RECORDINGS / "t10-smollm2-llamacpp")
    assert [s["id"] for s in rec.manifest["sessions"]] == [s["id"] for s in shipped.manifest["sessions"]]

    def sent(recording, session):
        calls = recording.session_calls(session)
        if recording.session_info(session)["kind"] == "live":
            calls = calls[:1]  # the model's own reply decides what comes next
        return [{k: v for k, v in c.request.items() if k != "model"} for c in calls]

    for s in shipped.manifest["sessions"]:
        assert sent(rec, s["id"]) == sent(shipped, s["id"]), s["id"]


def test_refresh_puts_the_note_in_the_prompt_right_after_the_write(recorded):
    rec = load(recorded)
    systems = [c.request["messages"][0]["content"] for c in rec.session_calls("refresh-day1")]
    note = "python tools/check.py"
    assert [note in s for s in systems] == [False] * 5 + [True] * 5
    frozen = [c.request["messages"][0]["content"] for c in rec.session_calls("frozen-day1")]
    assert not any(note in s for s in frozen)
    assert note in rec.session_calls("frozen-day2")[0].request["messages"][0]["content"]
    cf = [c.request["messages"][0]["content"] for c in rec.session_calls("counterfactual-k3")]
    assert [note in s for s in cf] == [False] * 3 + [True] * 7


def test_the_fork_shares_the_first_three_rounds(recorded):
    rec = load(recorded)
    path = rec.session_path("frozen-day1-fork")
    calls = [e for e in path if e["type"] == "model_call"]
    main_calls = [c.entry_id for c in rec.session_calls("frozen-day1")]
    assert [e["id"] for e in calls[:3]] == main_calls[:3]
    assert len(calls) == 6
    assert path[[e["type"] for e in path].index("model_call") - 1]["type"] == "message"


def test_tool_results_are_real(recorded):
    rec = load(recorded)
    messages = rec.session_calls("frozen-day1")[-1].request["messages"]
    tool_results = [m["content"] for m in messages if m["role"] == "tool"]
    assert "FAIL parse negative" in tool_results[5]  # python tools/check.py before the fix
    assert "5 of 5 checks pass" in tool_results[8]  # and after it
    assert tool_results[4].startswith("Saved to MEMORY.md")


def test_missing_cached_count_is_not_reported_never_zero(copy):
    path = copy / "refresh-day1.jsonl"
    lines = path.read_text().splitlines()
    entry = json.loads(lines[2])
    assert entry["type"] == "model_call"
    del entry["response"]["usage"]["prompt_tokens_details"]
    lines[2] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")
    assert load(copy).calls[0].cached_tokens is None


def test_incomplete_recordings_are_refused_unless_asked(copy):
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["status"] = "incomplete"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RecordingError, match="'incomplete', not complete"):
        load(copy)
    assert not load(copy, allow_incomplete=True).complete


def test_bad_manifest_json_names_the_line(copy):
    (copy / "manifest.json").write_text('{\n "format": \n')
    with pytest.raises(RecordingError, match=r"manifest.json:3: not valid JSON"):
        load(copy)


def test_schema_errors_name_the_field(copy):
    manifest = json.loads((copy / "manifest.json").read_text())
    del manifest["sessions"][1]["leaf"]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RecordingError, match=r"field sessions/1: 'leaf' is a required property"):
        load(copy)


def test_a_call_missing_prompt_tokens_names_file_line_and_field(copy):
    path = copy / "frozen-day2.jsonl"
    lines = path.read_text().splitlines()
    entry = json.loads(lines[2])
    del entry["response"]["usage"]["prompt_tokens"]
    lines[2] = json.dumps(entry)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordingError, match=r"frozen-day2.jsonl:3: field response.usage.prompt_tokens is missing"):
        load(copy)


def test_a_torn_session_file_in_a_complete_recording_is_an_error(copy):
    path = copy / "frozen-day2.jsonl"
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(RecordingError, match="incomplete last line.*manifest says complete"):
        load(copy)


def test_order_pointing_at_a_missing_call_is_an_error(copy):
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["order"][4]["call"] = "deadbeef"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RecordingError, match=r"order\[4\]: field call: no model_call entry 'deadbeef'"):
        load(copy)


def test_not_a_recording(tmp_path):
    with pytest.raises(RecordingError, match="no manifest.json"):
        load(tmp_path)


def test_a_server_failing_mid_recording_leaves_an_incomplete_recording(tmp_path):
    from miniagent.model import ModelError

    served = []

    def flaky(body):
        served.append(1)
        return (503, {"error": "overloaded"}) if len(served) > 3 else _reply(body)

    out = tmp_path / "t10"
    provenance = base_provenance(CHAT_TEMPLATE, TOKENIZER)
    provenance["server"], provenance["model"] = {"kind": "external", "flags": []}, {"name": "fake"}
    with FakeChatServer(flaky) as srv:
        recorder = T10Recorder(out, lambda: srv.url, lambda e: e + 1, provenance, "fake", log=lambda line: None)
        recorder.max_retries = 1
        with pytest.raises(ModelError, match="HTTP 503"):
            recorder.record()
        recorder.fail(ModelError("HTTP 503"))
    with pytest.raises(RecordingError, match="'incomplete', not complete"):
        load(out)
    partial = load(out, allow_incomplete=True)
    assert partial.manifest["error"] == "ModelError: HTTP 503"
    assert partial.calls == []  # the unfinished session was never registered in the order


def test_the_record_command_marks_a_failed_recording_incomplete_and_exits_1(tmp_path, capsys):
    from chapters.a6.experiments import memory_timing

    served = []

    def flaky(body):
        served.append(1)
        return (503, {"error": "overloaded"}) if len(served) > 3 else _reply(body)

    out = tmp_path / "t10"
    with FakeChatServer(flaky) as srv:
        code = memory_timing.main([str(out), "--server-url", srv.url, "--model", "fake",
                              "--no-counterfactuals", "--no-live"])
    assert code == 1
    assert "marked incomplete" in capsys.readouterr().err
    assert load(out, allow_incomplete=True).manifest["status"] == "incomplete"
