"""A5·3 offline: the recorder's plan, chunks and resume against a fake server (not a result), and the
rule detector the lesson counts with.

The fake answers every summary call with a text that names the call, so what each later call saw
can be checked: the second summary call sees the first summary instead of the task, and so on.
"""
from __future__ import annotations

import json

import pytest

from chapters.a5.experiments.layered_summaries import VARIANTS, LayersRecorder, main, plan, resume
from chapters.a5.figures.layers import layers, rule_in, shares
from chapters.a5.figures.layers import recording as layers_recording
from chapters.a5.tests.test_a5_recorders import PROVENANCE
from fake_server import FakeChatServer, completion
from miniagent.compaction import STRUCTURED_REQUEST
from prefixlab.recording.format import load

RULE = "不许改测试文件"


def _server(texts):
    def reply(body):
        text = texts(len(server.received), body)
        return 200, completion({"role": "assistant", "content": text}, 100, 0)
    server = FakeChatServer(reply)
    return server


def _record(out, runs, texts=lambda i, body: f"summary {i}", minutes=None, chunks=None):
    with _server(texts) as server:
        recorder = LayersRecorder(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local",
                                  log=lambda line: None)
        recorder.manifest["runs"] = recorder.manifest["fix_runs"] = runs
        if (out / "manifest.json").exists():
            resume(recorder, out)
        recorder.record(minutes=minutes, chunks=chunks)
        return list(server.received)


@pytest.fixture(scope="module")
def one_seed(tmp_path_factory):
    out = tmp_path_factory.mktemp("a5-3") / "rec"
    received = _record(out, 1, texts=lambda i, body: "keep: 不许改测试文件" if i % 3 == 1 else f"summary {i}")
    return load(out), [json.loads(b) for b in received]


def test_the_plan_runs_the_prompts_seed_by_seed_and_the_fixes_first_as_far_as_fix_runs():
    assert plan(2, 2) == [(1, v) for v in VARIANTS] + [(2, v) for v in VARIANTS]
    assert plan(3, 1) == ([(1, v) for v in VARIANTS] + [(2, "free"), (2, "structured"), (3, "free"), (3, "structured")]
                          + [(2, "keep-user"), (2, "agents-md"), (3, "keep-user"), (3, "agents-md")])


def test_every_session_compacts_three_times_and_only_the_summaries_are_requests(one_seed):
    rec, bodies = one_seed
    assert [s["id"] for s in rec.manifest["sessions"]] == [f"{v}-01" for v in VARIANTS]
    assert len(rec.calls) == 3 * len(VARIANTS) and all(c.kind == "compaction" for c in rec.calls)
    assert rec.manifest["policy"] == "live" and rec.manifest["rule"] == RULE and rec.manifest["chunks"] == [4]
    assert all(b["seed"] == 1 and b["temperature"] == 0.7 and b["max_tokens"] == 128 for b in bodies)


def test_a_summary_of_a_summary_sees_the_summary_not_the_task(one_seed):
    rec, _ = one_seed
    free = rec.session_calls("free-01")
    first, second = free[0].request["messages"], free[1].request["messages"]
    assert any(RULE in m["content"] for m in first if m["role"] == "user")       # the task
    assert second[1]["content"].endswith("keep: 不许改测试文件")                 # the first summary, not the task
    assert free[0].request["messages"][-1]["content"] == "Summarize the conversation so far."
    structured = rec.session_calls("structured-01")
    assert structured[0].request["messages"][-1]["content"] == STRUCTURED_REQUEST


def test_the_fixes_put_the_rule_where_no_summary_can_drop_it(one_seed):
    rec, _ = one_seed
    rows = layers(rec)
    assert {r.depth for r in rows} == {1, 2, 3}
    by = {(r.variant, r.depth): r for r in rows}
    assert by["free", 1].in_summary == "verbatim" and by["free", 2].in_summary is None
    assert not by["free", 2].reaches_model and not by["free", 3].reaches_model
    assert all(by[v, d].reaches_model for v in ("keep-user", "agents-md") for d in (1, 2, 3))
    agents = rec.session_calls("agents-md-01")[0].request["messages"]
    assert RULE in agents[0]["content"] and RULE not in agents[1]["content"]  # system prompt, not the task
    cells = shares(rows)
    assert len(cells) == 12 and all(c.runs == 1 for c in cells)


def test_a_chunk_stops_in_time_and_resume_continues_in_a_new_epoch(tmp_path):
    out = tmp_path / "rec"
    _record(out, 2, minutes=1e-6)  # stops after the first run: the next would not fit
    first = load(out)
    assert first.manifest["status"] == "complete" and len(first.manifest["sessions"]) == 1
    _record(out, 2)
    rec = load(out)
    assert [s["id"] for s in rec.manifest["sessions"]] == [f"{v}-{s:02d}" for s, v in plan(2, 2)]
    assert rec.manifest["chunks"] == [1, 7] and {o["epoch"] for o in rec.manifest["order"]} == {0, 1}
    ts = [o["t"] for o in rec.manifest["order"]]
    assert ts == sorted(ts)


def test_the_replay_schedule_rebuilds_the_chunks(tmp_path):
    out = tmp_path / "rec"
    _record(out, 1, chunks=[1, 3])
    rec = load(out)
    assert rec.manifest["chunks"] == [1, 3]
    assert [o["epoch"] for o in rec.manifest["order"]] == [0] * 3 + [1] * 9


def test_bad_command_lines_are_refused_clearly(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path / "none"), "--resume"])
    assert "holds no recording to continue" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "new"), "--minutes", "0"])
    assert "--minutes must be more than 0" in capsys.readouterr().err
    (tmp_path / "there").mkdir()
    with pytest.raises(SystemExit):
        main([str(tmp_path / "there")])
    assert "--resume" in capsys.readouterr().err


@pytest.mark.parametrize("text, kind", [
    ("规矩:不许改测试文件。", "verbatim"),
    ("用户要求不要修改测试文件 tools/check.py", "paraphrase"),
    ("测试文件不能改。", "paraphrase"),
    ("Constraint: do not modify the test files.", "paraphrase"),
    ("The user said we must not change any tests.", "paraphrase"),
    ("Test files must not be edited.", "paraphrase"),
    ("Run the tests with python tools/check.py; 5 of 5 pass.", None),
    ("修好了负数,测试全部通过。", None),
    ("I did not change the README, then ran the tests.", None),
])
def test_the_rule_detector(text, kind):
    assert rule_in(text, RULE) == kind


def test_the_shipped_recording_holds_three_sampled_summaries_per_run_in_plan_order():
    rec = layers_recording()
    m = rec.manifest
    assert m["policy"] == "live" and m["status"] == "complete" and sum(m["chunks"]) == len(m["sessions"])
    assert [(s["seed"], s["variant"]) for s in m["sessions"]] == plan(m["runs"], m["fix_runs"])[:len(m["sessions"])]
    for info in m["sessions"]:
        calls = rec.session_calls(info["id"])
        assert len(calls) == 3 and all(c.kind == "compaction" for c in calls)
        assert all(c.request["seed"] == info["seed"] and c.request["temperature"] > 0 for c in calls)
    # the rule is in the task's user message, not in AGENTS.md, except in the agents-md variant
    first = {s["variant"]: rec.session_calls(s["id"])[0].request["messages"] for s in m["sessions"]}
    assert RULE in first["free"][1]["content"] and RULE not in first["free"][0]["content"]
    assert RULE in first["agents-md"][0]["content"] and RULE not in first["agents-md"][1]["content"]
