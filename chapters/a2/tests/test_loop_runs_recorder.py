"""A2·5's loop-runs recorder, offline: a fake server stands in for llama-server (not a result).

What must hold whatever the server answers: every request carries the constrained schema and the run's
seed; a model that makes the same call forever runs to the round limit without the guard and is stopped by
the guard after PATIENCE calls made before; both runs end with a ``stopped`` entry that says why.
"""
from __future__ import annotations

import json

from fake_server import FakeChatServer, completion

from chapters.a2.experiments import loop_runs
from miniagent.loop_guard import REPEATED
from prefixlab.paths import CHAT_TEMPLATE
from prefixlab.paths import TOKENIZER as TOKENIZER_PATH
from prefixlab.recording.format import load
from prefixlab.recording.recorder import base_provenance

PROVENANCE = base_provenance(CHAT_TEMPLATE, TOKENIZER_PATH) | {"server": {"kind": "external", "flags": []},
                                                               "model": {"name": "fake"}}
CHECK = json.dumps({"tool": "run_command", "arguments": {"command": "python tools/check.py"}})


def record(tmp_path, runs=1):
    def reply(body):
        assert "response_format" in body
        return 200, completion({"role": "assistant", "content": CHECK})

    out = tmp_path / "rec"
    with FakeChatServer(reply) as server:
        recorder = loop_runs.LoopRunsRecorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE,
                                              "local", log=lambda line: None)
        recorder.manifest["runs"] = runs
        recorder.record()
    return load(out)


def entries(rec, session):
    info = next(i for i in rec.manifest["sessions"] if i["id"] == session)
    return [json.loads(line) for line in (rec.path / info["file"]).read_text(encoding="utf-8").splitlines()]


def test_a_repeated_call_runs_to_the_limit_without_the_guard_and_is_stopped_with_it(tmp_path):
    rec = record(tmp_path)
    assert [s["id"] for s in rec.manifest["sessions"]] == ["constrained-01", "guarded-01"]
    plain, guarded = rec.session_calls("constrained-01"), rec.session_calls("guarded-01")
    assert len(plain) == loop_runs.MAX_ROUNDS
    assert len(guarded) == loop_runs.PATIENCE + 1
    for call in plain + guarded:
        assert "response_format" in call.request and call.request["seed"] == 1
        assert call.request["temperature"] == loop_runs.TEMPERATURE
    results = [e["message"]["content"] for e in entries(rec, "guarded-01")
               if e["type"] == "message" and e["message"]["role"] == "tool"]
    assert results[0].startswith("PASS") or "checks pass" in results[0]
    assert results[1:] == [REPEATED] * loop_runs.PATIENCE
    stops = {s: [e["reason"] for e in entries(rec, s) if e["type"] == "stopped"] for s in ("constrained-01", "guarded-01")}
    assert stops["constrained-01"] == [f"no final answer after {loop_runs.MAX_ROUNDS} rounds"]
    assert len(stops["guarded-01"]) == 1 and stops["guarded-01"][0].startswith("no progress")


def test_the_counts_say_how_each_run_ended(tmp_path):
    from chapters.a2.loops import runs, summary

    record(tmp_path, runs=1)
    ended = {r.variant: r.ended for r in runs(tmp_path / "rec")}
    assert ended == {"constrained": "round_limit", "guarded": "no_progress"}
    table = summary(tmp_path / "rec")
    assert table["guarded"]["answered_by_guard"] == loop_runs.PATIENCE and table["constrained"]["answered_by_guard"] == 0
    assert table["constrained"]["requests"] == loop_runs.MAX_ROUNDS and table["constrained"]["answers"] == 0
