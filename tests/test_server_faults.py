"""Every fault in tests/fault_server.py, run through ``python -m miniagent``: the agent never ends in
a traceback, says in one line what was wrong, and an answered call is always in the session file."""
import json

import pytest

from miniagent.cli import main
from miniagent.session import Session

from fault_server import FAULTS, HANG, UNCOUNTABLE, FaultServer, final, tool_call

ANSWERED = [name for name, (status, _) in FAULTS.items() if status == 200]


def run(tmp_path, replies, *options):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    with FaultServer(replies) as srv:
        code = main(["do it", "-w", str(repo), "--server", srv.url, "--retries", "0",
                     "--memory", str(tmp_path / "m" / "MEMORY.md"), "--session", str(tmp_path / "s.jsonl"),
                     *options])
    return code, Session.open(tmp_path / "s.jsonl")


@pytest.mark.parametrize("fault", list(FAULTS))
def test_no_fault_ends_in_a_traceback(tmp_path, capsys, fault):
    code, _ = run(tmp_path, [FAULTS[fault], (200, final())])
    err = capsys.readouterr().err
    assert code in (0, 1)
    if code == 1:
        lines = [line for line in err.splitlines() if line.startswith("miniagent: error:")]
        assert len(lines) == 1 and "Traceback" not in err


@pytest.mark.parametrize("fault", ANSWERED)
def test_an_answered_call_is_always_in_the_session_file(tmp_path, capsys, fault):
    _, session = run(tmp_path, [FAULTS[fault], (200, final())])
    assert [e["type"] for e in session.entries].count("model_call") >= 1, fault


def test_a_final_answer_cut_at_max_tokens_is_reported_not_taken(tmp_path, capsys):
    code, session = run(tmp_path, [FAULTS["cut off at max_tokens"]])
    captured = capsys.readouterr()
    assert code == 1 and "max_tokens" in captured.err and "--max-tokens" in captured.err
    assert session.entries[-1]["type"] == "stopped" and "cut off" in session.entries[-1]["reason"]


@pytest.mark.parametrize("fault", ["content is a list", "content is a number", "choices is empty",
                                   "message is text", "JSON but a list"])
def test_a_reply_of_the_wrong_shape_is_refused_by_name(tmp_path, capsys, fault):
    code, _ = run(tmp_path, [FAULTS[fault]])
    err = capsys.readouterr().err
    assert code == 1 and "the server at" in err and "Traceback" not in err


@pytest.mark.parametrize("fault", ["lone surrogate in content", "lone surrogate in call arguments"])
def test_a_lone_surrogate_is_refused_and_the_call_kept(tmp_path, capsys, fault):
    code, session = run(tmp_path, [FAULTS[fault]])
    err = capsys.readouterr().err
    assert code == 1 and "surrogate" in err
    call = next(e for e in session.entries if e["type"] == "model_call")
    assert "\\ud800" in json.dumps(call) or "\\udc00" in json.dumps(call)


@pytest.mark.parametrize("fault", UNCOUNTABLE)
def test_a_budget_that_cannot_be_counted_stops_the_run(tmp_path, capsys, fault):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.txt").write_text("hello")
    call = tool_call('{"path": "a.txt"}')
    call["usage"] = FAULTS[fault][1].get("usage")  # the call asks for a tool, its usage cannot be counted
    if call["usage"] is None:
        del call["usage"]
    code, session = run(tmp_path, [(200, call), (200, final())], "--budget", "1000")
    err = capsys.readouterr().err
    stopped = session.entries[-1]
    assert code == 1 and stopped["type"] == "stopped" and "cannot be counted" in stopped["reason"]
    assert "cannot be counted" in err


@pytest.mark.parametrize("fault", UNCOUNTABLE)
def test_without_a_budget_bad_usage_is_noted_not_fatal(tmp_path, capsys, fault):
    code, _ = run(tmp_path, [FAULTS[fault]])
    captured = capsys.readouterr()
    assert code == 0 and "done" in captured.out


def test_a_server_that_hangs_times_out_with_a_message(tmp_path, capsys):
    code, _ = run(tmp_path, [HANG], "--request-timeout", "0.5")
    err = capsys.readouterr().err
    assert code == 1 and "did not answer within 0.5 s" in err


def test_a_tool_call_then_a_fault_keeps_both_calls(tmp_path, capsys):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.txt").write_text("hello")
    code, session = run(tmp_path, [(200, tool_call('{"path": "a.txt"}')), FAULTS["content is a list"]])
    assert code == 1 and [e["type"] for e in session.entries].count("model_call") == 2
