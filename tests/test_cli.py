import json
import subprocess
import sys
from pathlib import Path

import pytest

from miniagent.cli import main
from miniagent.session import Session

from fake_server import FakeChatServer, completion

ROOT = Path(__file__).resolve().parents[1]


def test_help_works_as_a_module():
    out = subprocess.run([sys.executable, "-m", "miniagent", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and "--mode {refresh,frozen,append,after-tools,select,retrieve}" in out.stdout


def test_runs_a_task_end_to_end_with_progress(tmp_path, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").write_text("Reply in one line.")
    call = {"id": "c1", "type": "function", "function": {"name": "remember", "arguments": json.dumps({"note": "n1"})}}
    replies = [(200, completion({"role": "assistant", "content": None, "tool_calls": [call]})),
               (200, completion({"role": "assistant", "content": "all done"}))]
    with FakeChatServer(replies) as srv:
        code = main(["fix", "-w", str(repo), "--server", srv.url, "--mode", "refresh",
                     "--memory", str(tmp_path / "m" / "MEMORY.md"), "--session", str(tmp_path / "s.jsonl")])
    out = capsys.readouterr().out
    assert code == 0 and "all done" in out
    assert "round 1: prompt 74 tokens, cached 73" in out and "system prompt refreshed" in out
    assert (tmp_path / "m" / "MEMORY.md").read_text() == "n1\n"
    types = [e["type"] for e in Session.open(tmp_path / "s.jsonl").entries]
    assert types.count("model_call") == 2 and "system_refresh" in types
    assert "Reply in one line." in json.loads(srv.received[0])["messages"][0]["content"]


@pytest.mark.parametrize("mode, entry, seen", [("append", "message", "[memory updated] n1"),
                                               ("after-tools", "message_refresh", "# Memory from previous sessions\n\nn1")])
def test_the_two_newer_modes_show_a_note_at_once_without_touching_the_system_prompt(tmp_path, capsys, mode, entry,
                                                                                     seen):
    repo = tmp_path / "repo"
    repo.mkdir()
    call = {"id": "c1", "type": "function", "function": {"name": "remember", "arguments": json.dumps({"note": "n1"})}}
    replies = [(200, completion({"role": "assistant", "content": None, "tool_calls": [call]})),
               (200, completion({"role": "assistant", "content": "all done"}))]
    with FakeChatServer(replies) as srv:
        code = main(["fix", "-w", str(repo), "--server", srv.url, "--mode", mode,
                     "--memory", str(tmp_path / "m" / "MEMORY.md"), "--session", str(tmp_path / "s.jsonl")])
    out = capsys.readouterr().out
    assert code == 0 and f"({mode})" in out and "round 2: " in out and "system prompt refreshed" not in out
    first, second = (json.loads(body)["messages"] for body in srv.received)
    assert first[0] == second[0] and "n1" not in first[0]["content"]
    assert any(m["content"] and m["content"].startswith(seen) for m in second[1:])
    assert entry in [e["type"] for e in Session.open(tmp_path / "s.jsonl").entries][-3:]


def test_server_down_exits_with_a_message(tmp_path, capsys):
    code = main(["x", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1",
                 "--memory", str(tmp_path / "M.md"), "--session", str(tmp_path / "s.jsonl")])
    assert code == 1 and "cannot reach the model server" in capsys.readouterr().err


def test_a_missing_task_file_is_a_clear_error(tmp_path, capsys):
    missing = tmp_path / "no-such-task.md"
    code = main([f"@{missing}", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1",
                 "--memory", str(tmp_path / "M.md"), "--session", str(tmp_path / "s.jsonl")])
    assert code == 1
    assert capsys.readouterr().err == f"miniagent: error: cannot read the task file {missing}: No such file or directory\n"


def test_a_task_file_is_read(tmp_path, capsys):
    (tmp_path / "task.md").write_text("the task from the file")
    replies = [(200, completion({"role": "assistant", "content": "ok"}))]
    with FakeChatServer(replies) as srv:
        code = main([f"@{tmp_path / 'task.md'}", "-w", str(tmp_path), "--server", srv.url,
                     "--memory", str(tmp_path / "M.md"), "--session", str(tmp_path / "s.jsonl")])
    assert code == 0
    assert json.loads(srv.received[0])["messages"][1] == {"role": "user", "content": "the task from the file"}


def test_forking_from_an_unknown_entry_prints_a_clean_message(tmp_path, capsys):
    session = tmp_path / "s.jsonl"
    code = main(["x", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1",
                 "--memory", str(tmp_path / "M.md"), "--session", str(session), "--fork", "nope"])
    assert code == 1
    # The file does not exist (never made, or deleted): say so, not merely that the entry is missing.
    assert capsys.readouterr().err == f"miniagent: error: no entry 'nope': the session file {session} does not exist\n"
    session.write_text('{"id": "a", "parentId": null, "type": "system", "content": "x"}\n')
    code = main(["x", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1",
                 "--memory", str(tmp_path / "M.md"), "--session", str(session), "--fork", "nope"])
    assert code == 1 and capsys.readouterr().err == f"miniagent: error: no entry 'nope' in {session}\n"


def test_a_task_file_that_is_not_utf8_is_a_clear_error(tmp_path, capsys):
    task = tmp_path / "task.md"
    task.write_bytes("修复测试".encode("gbk"))
    code = main([f"@{task}", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1",
                 "--memory", str(tmp_path / "M.md"), "--session", str(tmp_path / "s.jsonl")])
    assert code == 1 and capsys.readouterr().err.startswith(
        f"miniagent: error: cannot read the task file {task}: it is not UTF-8 text")


def test_compact_at_summarises_older_rounds_through_the_server(tmp_path, capsys):
    from miniagent.compaction import SUMMARY_HEADER, SUMMARY_REQUEST

    repo = tmp_path / "repo"
    repo.mkdir()
    call = {"id": "c1", "type": "function", "function": {"name": "list_files", "arguments": json.dumps({"path": "."})}}
    turns = [completion({"role": "assistant", "content": None, "tool_calls": [call]})] * 3 + \
        [completion({"role": "assistant", "content": "all done"})]

    def reply(body):
        if body["messages"][-1]["content"] == SUMMARY_REQUEST:
            return 200, completion({"role": "assistant", "content": "listed the files"})
        return 200, turns.pop(0)

    with FakeChatServer(reply) as srv:
        code = main(["fix", "-w", str(repo), "--server", srv.url, "--compact-at", "1",
                     "--memory", str(tmp_path / "M.md"), "--session", str(tmp_path / "s.jsonl")])
    out = capsys.readouterr().out
    assert code == 0 and "all done" in out
    # Rounds 1-3 hold at most the two kept rounds; round 4 compacts round 1 away.
    assert "round 3: about" in out and "no round is older than the 2 kept; sent as it is" in out
    assert "round 4: about" in out and "older rounds replaced by a summary" in out
    sent = [json.loads(body) for body in srv.received]
    assert [m["role"] for m in sent[-1]["messages"]] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert sent[-1]["messages"][1]["content"] == f"{SUMMARY_HEADER}\n\nlisted the files"
    compaction, = [e for e in Session.open(tmp_path / "s.jsonl").entries if e["type"] == "compaction"]
    assert compaction["request"]["messages"][-1]["content"] == SUMMARY_REQUEST and "tools" not in compaction["request"]


# -- bad input and faults (issue 21) --------------------------------------------------------------

def _args(tmp_path, server="http://127.0.0.1:9/v1", *extra):
    return ["x", "-w", str(tmp_path), "--server", server, "--memory", str(tmp_path / "M.md"),
            "--session", str(tmp_path / "s.jsonl"), *extra]


@pytest.mark.parametrize("option, value", [("--timeout", "0"), ("--timeout", "-3"), ("--timeout", "nan"),
                                           ("--request-timeout", "0"), ("--request-timeout", "-1"),
                                           ("--retries", "-1"), ("--retries", "1.5")])
def test_a_timeout_or_retry_count_that_makes_no_sense_is_refused(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as caught:
        main(_args(tmp_path, "http://127.0.0.1:9/v1", option, value))
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: " in err and repr(value) in err
    assert not (tmp_path / "s.jsonl").exists()


def test_a_server_that_stops_answering_ends_with_a_timeout_message(tmp_path, capsys):
    import time

    def stuck(body):
        time.sleep(4)
        return 200, completion({"role": "assistant", "content": "too late"})
    with FakeChatServer(stuck) as srv:
        started = time.monotonic()
        code = main(_args(tmp_path, srv.url, "--request-timeout", "1.5"))
    assert code == 1 and time.monotonic() - started < 4
    err = capsys.readouterr().err
    assert f"miniagent: error: the model server at {srv.url} did not answer within 1.5 s" in err
    assert "is it running?" not in err


def test_retries_are_announced_on_stderr(tmp_path, capsys):
    replies = [(503, {"error": "loading model"}), (200, completion({"role": "assistant", "content": "ok"}))]
    with FakeChatServer(replies) as srv:
        assert main(_args(tmp_path, srv.url, "--retries", "1")) == 0
    assert "the model server answered HTTP 503; retry 1 of 1 in " in capsys.readouterr().err


def test_an_answer_that_is_not_json_is_a_clear_error(tmp_path, capsys):
    with FakeChatServer([(200, b"Bad Gateway")]) as srv:
        assert main(_args(tmp_path, srv.url)) == 1
    assert "miniagent: error: the server at " in capsys.readouterr().err


def test_a_memory_file_that_is_not_utf8_stops_the_start_with_a_clear_error(tmp_path, capsys):
    (tmp_path / "M.md").write_bytes("笔记".encode("gbk"))
    assert main(_args(tmp_path)) == 1
    assert capsys.readouterr().err.startswith(f"miniagent: error: {tmp_path / 'M.md'}: not UTF-8 text (byte 0")
    assert (tmp_path / "M.md").read_bytes() == "笔记".encode("gbk")


def test_no_final_answer_after_max_rounds_exits_non_zero(tmp_path, capsys):
    call = {"id": "c1", "type": "function", "function": {"name": "list_files", "arguments": '{"path": "."}'}}
    asks = completion({"role": "assistant", "content": None, "tool_calls": [call]})
    with FakeChatServer([(200, asks)] * 2) as srv:
        code = main(_args(tmp_path, srv.url, "--max-rounds", "2"))
    captured = capsys.readouterr()
    assert code == 1 and "(no final answer)" in captured.out
    assert "miniagent: error: no final answer after 2 rounds" in captured.err
    assert "session resume" in captured.err


def test_a_token_budget_stops_the_task_before_the_call_that_would_go_over(tmp_path, capsys):
    call = {"id": "c1", "type": "function", "function": {"name": "list_files", "arguments": '{"path": "."}'}}
    asks = completion({"role": "assistant", "content": None, "tool_calls": [call]})  # 74 + 1 tokens a call
    with FakeChatServer([(200, asks)] * 5) as srv:
        code = main(_args(tmp_path, srv.url, "--budget", "150"))
    captured = capsys.readouterr()
    assert code == 1 and len(srv.received) == 2
    assert "token budget spent: 150 tokens used, the budget is 150" in captured.err and "--budget" in captured.err
    stopped = Session.open(tmp_path / "s.jsonl").entries[-1]
    assert stopped["type"] == "stopped" and stopped["tokens"] == 150


def test_a_session_file_in_the_shipped_data_is_never_appended_to(tmp_path, capsys):
    shipped = ROOT / "data" / "recordings" / "t11-smollm2-llamacpp" / "message-day1.jsonl"
    before = shipped.read_bytes()
    leaf = Session.open(shipped).leaf
    code = main(["x", "-w", str(tmp_path), "--server", "http://127.0.0.1:9/v1", "--memory", str(tmp_path / "M.md"),
                 "--session", str(shipped), "--fork", leaf])
    assert code == 1 and shipped.read_bytes() == before
    assert f"{shipped} is part of the course's shipped data" in capsys.readouterr().err
