"""The A9 evaluation harness (prefixlab.eval), offline: the task set, the oracle, every kind of row.

No real server: the live designs talk to tests/fake_server.py. A run that goes wrong (a check that
crashes, a run past its time limit, a workspace the agent damaged, a server that never answers) is a
clear row in results.jsonl, never a lost run; --resume skips every run that has a row.
"""
from __future__ import annotations

import json
import shutil
import time

import pytest
from fake_server import FakeChatServer, completion

from prefixlab.eval import cli, harness
from prefixlab.eval.harness import EvalRecorder, read_results, run_check
from prefixlab.eval.tasks import TASKS, TaskSetError, load_tasks

PROVENANCE = {"server": {"kind": "external", "flags": []}, "model": {"name": "fake"},
              "chat_template": {"sha256": "x", "text": ""}, "tokenizer": {"sha256": "x", "path": "none"}, "recorder": {}}


def recorder(out, url="http://127.0.0.1:9/v1", **kwargs):
    return EvalRecorder(out, lambda: url, lambda epoch: epoch + 1, PROVENANCE, "local", log=lambda line: None, **kwargs)


def call(name, **arguments):
    return completion({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})


def answer(text="STATUS: done"):
    return completion({"role": "assistant", "content": text})


# -- the task set ------------------------------------------------------------------------------------------

def test_the_task_set_has_ten_tasks_in_swe_bench_shape(tmp_path):
    tasks = load_tasks()
    assert len(tasks) >= 10
    for task in tasks:
        ws = task.make_workspace(tmp_path / task.id)
        assert not (ws / "check.py").exists() and task.check.parent == task.folder  # hidden: outside the workspace
        results = run_check(task, ws)
        # before the fix: every fail_to_pass test fails, every pass_to_pass test passes
        assert [n for n in task.fail_to_pass if results[n] == "pass"] == [], task.id
        assert [n for n in task.pass_to_pass if results[n] != "pass"] == [], task.id
        assert task.oracle and task.protected


def test_the_oracle_passes_every_task(tmp_path):
    rec = recorder(tmp_path / "out", designs=["oracle"], seeds=3)
    rec.record()
    rows = read_results(tmp_path / "out")
    assert len(rows) == len(load_tasks())  # deterministic: one seed per task
    assert [r["why"] for r in rows] == ["pass"] * len(rows)
    assert all(r["passed"] and r["requests"] == 0 and r["stop_reason"] == "answered" for r in rows)
    for r in rows:
        assert list(r) == list(harness.RESULT_KEYS)
        assert (tmp_path / "out" / r["session"]).is_file() and r["session"].startswith("oracle/")
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["sessions"] == []  # nothing was sent


def test_a_bad_task_folder_is_a_clear_error(tmp_path):
    root = tmp_path / "tasks"
    shutil.copytree(TASKS / "rounding", root / "rounding")
    (root / "rounding" / "task.md").write_text("  \n")
    with pytest.raises(TaskSetError, match="task.md is empty"):
        load_tasks(root)
    shutil.copy(TASKS / "rounding" / "task.md", root / "rounding" / "task.md")
    (root / "rounding" / "task.yml").write_text((TASKS / "rounding" / "task.yml").read_text().replace(
        "rounded_50f", "not_there"))
    with pytest.raises(TaskSetError, match="has no test_not_there"):
        load_tasks(root)
    with pytest.raises(TaskSetError, match="no task 'nope'"):
        load_tasks(TASKS, ["nope"])


# -- rows for everything that can go wrong ------------------------------------------------------------------

def one_task_set(tmp_path, task="rounding"):
    root = tmp_path / "tasks"
    shutil.copytree(TASKS / task, root / task)
    return root


def test_a_live_design_writes_a_session_a_row_and_the_order(tmp_path):
    oracle = load_tasks(TASKS, ["rounding"])[0].oracle
    replies = [call(c["tool"], **c["arguments"]) for c in oracle] + [answer()]
    with FakeChatServer([(200, r) for r in replies]) as server:
        rec = recorder(tmp_path / "out", server.url, tasks=["rounding"], designs=["constrained"], seeds=1)
        rec.record()
    row, = read_results(tmp_path / "out")
    assert (row["passed"], row["why"], row["requests"], row["stop_reason"]) == (True, "pass", 4, "answered")
    assert (row["prompt_tokens"], row["cached_tokens"], row["completion_tokens"]) == (4 * 74, 4 * 73, 4)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and len(manifest["order"]) == 4
    assert manifest["sessions"][0]["file"] == row["session"] == "constrained-rounding-01.jsonl"
    sent = [json.loads(b) for b in server.received]
    assert all(b["seed"] == 1 and b["max_tokens"] == harness.MAX_TOKENS and "response_format" in b for b in sent)


def test_an_answer_without_the_fix_is_a_failed_check(tmp_path):
    with FakeChatServer([(200, answer("STATUS: done"))]) as server:
        recorder(tmp_path / "out", server.url, tasks=["rounding"], designs=["text"], seeds=1).record()
    row, = read_results(tmp_path / "out")
    assert not row["passed"]
    assert row["why"].startswith("check failed: fail_to_pass rounded_100f: AssertionError")


def test_a_check_that_crashes_is_a_row(tmp_path):
    root = one_task_set(tmp_path)
    check = root / "rounding" / "check.py"
    check.write_text(check.read_text() + "\nraise RuntimeError('the check is broken')\n")
    with FakeChatServer([(200, answer())]) as server:
        recorder(tmp_path / "out", server.url, tasks_root=root, designs=["text"], seeds=1).record()
    row, = read_results(tmp_path / "out")
    assert not row["passed"] and row["why"].startswith("check crashed: exit code 1: RuntimeError: the check is broken")


def test_a_check_that_never_ends_is_a_crashed_check(tmp_path):
    root = one_task_set(tmp_path)
    check = root / "rounding" / "check.py"
    check.write_text(check.read_text() + "\n\ndef test_forever():\n    while True:\n        pass\n")
    with FakeChatServer([(200, answer())]) as server:
        recorder(tmp_path / "out", server.url, tasks_root=root, designs=["text"], seeds=1, check_seconds=2).record()
    row, = read_results(tmp_path / "out")
    assert row["why"] == "check crashed: no verdict within 2 s"


def test_a_deleted_test_file_is_a_damaged_workspace(tmp_path):
    replies = [call("run_command", command="rm tools/check.py"), answer()]
    with FakeChatServer([(200, r) for r in replies]) as server:
        recorder(tmp_path / "out", server.url, tasks=["rounding"], designs=["text"], seeds=1).record()
    row, = read_results(tmp_path / "out")
    assert (row["passed"], row["why"]) == (False, "workspace damaged: tools/check.py deleted")


def test_a_run_past_its_time_limit_is_a_timeout_row(tmp_path):
    def slow(body):
        time.sleep(0.4)
        return 200, call("list_files")

    with FakeChatServer(slow) as server:
        recorder(tmp_path / "out", server.url, tasks=["rounding"], designs=["constrained"], seeds=1,
                 run_seconds=0.6).record()
    row, = read_results(tmp_path / "out")
    assert (row["passed"], row["why"], row["stop_reason"]) == (False, "timeout", "timeout")
    assert row["requests"] in (1, 2)  # 0.4 s each: the limit stops it before a third (one, on a very busy machine)


def test_a_server_that_never_answers_is_a_timeout_row_and_stops_the_slice(tmp_path, monkeypatch):
    monkeypatch.setattr(harness, "REQUEST_GRACE", 0.5)
    with FakeChatServer(lambda body: (time.sleep(3), (200, answer()))[1]) as server:
        rec = recorder(tmp_path / "out", server.url, tasks=["rounding"], designs=["text"], seeds=2, run_seconds=0.5)
        with pytest.raises(harness.RequestUnanswered):
            rec.record()
    row, = read_results(tmp_path / "out")  # the run is a row; the next one was not started
    assert (row["why"], row["stop_reason"], row["requests"]) == ("timeout", "timeout", 0)


def test_max_rounds_is_a_stopped_row(tmp_path):
    with FakeChatServer(lambda body: (200, call("list_files"))) as server:
        recorder(tmp_path / "out", server.url, tasks=["rounding"], designs=["constrained"], seeds=1,
                 max_rounds=2).record()
    row, = read_results(tmp_path / "out")
    assert row["why"] == "stopped: no final answer after 2 rounds" and row["stop_reason"] == "max_rounds"


def test_resume_skips_every_run_with_a_row(tmp_path):
    out = tmp_path / "out"
    with FakeChatServer(lambda body: (200, answer())) as server:
        recorder(out, server.url, tasks=["rounding", "rename-function"], designs=["text", "oracle"], seeds=1).record()
        assert len(read_results(out)) == 4
        with open(out / "results.jsonl", "a") as f:
            f.write('{"task": "torn')  # a row cut off mid-write: that run is not done
        rec = recorder(out, server.url, tasks=["rounding", "rename-function"], designs=["text", "oracle"], seeds=1)
        rec.resume(out, seeds=2)
        (out / "results.jsonl").write_text((out / "results.jsonl").read_text().rsplit("\n", 1)[0] + "\n")
        rec.record()
    rows = read_results(out)
    keys = [(r["task"], r["design"], r["seed"]) for r in rows]
    assert len(keys) == len(set(keys)) == 6  # seed 2 adds the two text runs; the oracle runs once
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["chunks"] == [4, 2] and {o["epoch"] for o in manifest["order"]} == {0, 1}


def test_resume_with_other_designs_is_refused(tmp_path):
    out = tmp_path / "out"
    recorder(out, designs=["oracle"], tasks=["rounding"], seeds=1).record()
    with pytest.raises(SystemExit, match="other tasks or designs"):
        recorder(out, designs=["text"], tasks=["rounding"], seeds=1).resume(out)


# -- the command line ---------------------------------------------------------------------------------------

def test_the_cli_runs_the_oracle_and_prints_a_progress_line_per_run(tmp_path, capsys):
    assert cli.main([str(tmp_path / "o"), "--designs", "oracle", "--tasks", "rounding,whole-numbers"]) == 0
    out = capsys.readouterr().out
    assert "[1/2] rounding oracle seed 1: PASS (pass)" in out and "[2/2] whole-numbers" in out
    assert "oracle: 2 of 2 runs pass" in out


@pytest.mark.parametrize("argv, message", [
    (["--designs", "texts"], "unknown design 'texts'"),
    (["--tasks", "nope"], "no task 'nope'"),
    (["--seeds", "0"], "must be a positive number"),
    (["--resume"], "holds no evaluation to continue"),
])
def test_bad_command_lines_are_one_clear_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as done:
        cli.main([str(tmp_path / "x"), *argv])
    assert done.value.code == 2 and message in capsys.readouterr().err


def test_an_existing_folder_needs_resume(tmp_path, capsys):
    (tmp_path / "x").mkdir()
    with pytest.raises(SystemExit):
        cli.main([str(tmp_path / "x"), "--designs", "oracle"])
    assert "--resume" in capsys.readouterr().err


def test_a_recorded_evaluation_replays_byte_for_byte_timeouts_included(tmp_path):
    # what tests/test_replay.py does with the shipped evaluation, on a small one made here
    import helpers
    from test_replay import as_sent, replay, without_ids

    from prefixlab.recording.format import load

    def reply(body):
        time.sleep(0.25 if body.get("seed") == 2 else 0)  # seed 2 runs slowly: past its time limit
        if body["messages"][-1]["role"] == "user":
            return 200, call("run_command", command="python tools/check.py")
        return 200, answer()

    out = tmp_path / "rec"
    with helpers.pinned_unittest_clock(), FakeChatServer(reply) as server:
        rec = recorder(out, server.url, tasks=["rename-function"], designs=["text", "constrained", "oracle"],
                       seeds=2, run_seconds=0.3)
        rec.record()
    rows = read_results(out)
    assert [r["stop_reason"] for r in rows if r["seed"] == 2] == ["timeout", "timeout"]
    recording = load(out)
    with helpers.pinned_unittest_clock():
        received, manifest, error, _ = replay(recording, tmp_path / "again")
    assert error is None and len(received) == len(recording.calls)
    assert [as_sent(json.loads(b)) for b in received] == [as_sent(c.request) for c in recording.calls]
    assert without_ids(manifest) == without_ids(recording.manifest)
    assert "ImportError" in json.dumps(recording.calls[1].request)  # a traceback, paths and all, sent again


def test_a_reply_that_ended_on_its_end_token_keeps_its_whole_text_in_the_slot():
    # llama.cpp's slot keeps prompt + generated[:-1]; a reply that stopped on <|im_end|> counts that token
    # in completion_tokens, not in its text: every token of the text must reach the slot (A9's retries)
    from types import SimpleNamespace

    from prefixlab.cache import calculator

    tok = calculator._tokenizer(calculator.load_recording(harness_recording()))
    text = '```json\n{"name": "to_celsius"}\n```'
    n = len(calculator.text_token_ids(tok, text))

    def reply(finish, completion_tokens):
        return SimpleNamespace(response={"choices": [{"finish_reason": finish, "message": {"content": text}}],
                                         "usage": {"completion_tokens": completion_tokens}})

    assert len(calculator.generated_ids(reply("stop", n + 1), tok)) == n + 1     # its text, then the end token
    assert len(calculator.generated_ids(reply("length", n), tok)) == n           # cut off: no end token
    assert calculator.generated_ids(reply("stop", n + 1), tok)[:-1] == tuple(calculator.text_token_ids(tok, text))


def harness_recording():
    from prefixlab.paths import RECORDINGS
    return RECORDINGS / "a9-eval-qwen2.5-coder-0.5b-llamacpp"
