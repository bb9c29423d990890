"""``python -m miniagent session``: the tree, resume a leaf, fork from any entry, clone a path.

The agent runs against a fake server here (not a result): what matters is where the new entries go.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from miniagent.__main__ import main as agent_main
from miniagent.session import Session
from miniagent.session_cli import ContinuedSession, fork_point_problem, leaves, main, render_tree

from fake_server import FakeChatServer, completion

ROOT = Path(__file__).resolve().parents[1]


def _msg(session, role, text, **extra):
    return session.append("message", message={"role": role, "content": text, **extra})


@pytest.fixture
def tree(tmp_path):
    """system, user, a round with a tool call, then two branches; a compaction on the first."""
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    task = _msg(s, "user", "the task")
    call = {"id": "c1", "type": "function", "function": {"name": "list_files", "arguments": "{}"}}
    s.append("model_call", round=1, request={"messages": []},
             response={"usage": {"prompt_tokens": 50, "prompt_tokens_details": {"cached_tokens": 0}}})
    asks = _msg(s, "assistant", "look", tool_calls=[call])
    result = s.append("message", message={"role": "tool", "tool_call_id": "c1", "content": "a.py"})
    _msg(s, "assistant", "first way")
    s.append("compaction", message={"role": "user", "content": "summary"}, firstKeptId=result["id"], tokensBefore=9)
    first_leaf = _msg(s, "user", "more on the first way")
    s.fork(result["id"])
    second_leaf = _msg(s, "assistant", "second way")
    return {"session": s, "task": task, "asks": asks, "result": result, "first": first_leaf, "second": second_leaf}


def test_tree_shows_entries_branches_compactions_and_the_current_leaf(tree, capsys):
    s = tree["session"]
    assert main(["tree", str(s.path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{s.path}: 9 entries, 2 leaves, 1 branch point, 1 compaction\n")
    assert f"current leaf: {tree['second']['id']}" in out
    lines = out.splitlines()
    assert any(line.startswith(tree["task"]["id"]) and "user: the task" in line for line in lines)
    assert "model_call round 1: prompt 50 tokens, cached 0" in out
    assert "-> list_files({})" in out
    assert "├─ branch 1 of 2" in out and "└─ branch 2 of 2" in out
    assert f"compaction: summary stands in for the messages before {tree['result']['id']}" in out
    assert f"{tree['first']['id']}  user: more on the first way (leaf)" in out
    assert f"{tree['second']['id']}  assistant: second way <- current leaf" in out
    # the first branch is indented under its marker, the second one too
    assert any(line.startswith("│  ") and tree["first"]["id"] in line for line in lines)
    assert any(line.startswith("   ") and tree["second"]["id"] in line for line in lines)


def test_tree_reports_a_torn_last_line_and_shows_unknown_entry_types(tree, capsys):
    s = tree["session"]
    odd = {"id": "odd1", "parentId": tree["second"]["id"], "type": "label", "text": "mine"}
    with open(s.path, "a") as f:
        f.write(json.dumps(odd) + "\n" + '{"id": "x", "parentId": "odd1", "ty')
    assert main(["tree", str(s.path)]) == 0
    captured = capsys.readouterr()
    assert "dropped an incomplete last line (line 11" in captured.err
    assert "note: dropped an incomplete last line" in captured.out
    assert "odd1  ('label': an entry type miniagent does not know, kept as it is) <- current leaf" in captured.out


def test_tree_of_a_missing_or_corrupt_file_is_a_clear_error(tmp_path, capsys):
    assert main(["tree", str(tmp_path / "nope.jsonl")]) == 1
    assert f"miniagent session: error: no session file {tmp_path / 'nope.jsonl'}" in capsys.readouterr().err
    assert not (tmp_path / "nope.jsonl").exists()  # looking creates nothing
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "parentId": null, "type": "system", "content": "x"}\nnot json\n{"id": "b"}\n')
    assert main(["tree", str(bad)]) == 1
    assert "bad.jsonl:2: not a valid session entry" in capsys.readouterr().err


def test_the_agent_command_dispatches_session(tree, capsys):
    assert agent_main(["session", "tree", str(tree["session"].path)]) == 0
    assert "branch 1 of 2" in capsys.readouterr().out
    out = subprocess.run([sys.executable, "-m", "miniagent", "session", "--help"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0 and all(c in out.stdout for c in ("tree", "resume", "fork", "clone"))


def _run(tmp_path, argv):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    with FakeChatServer([(200, completion({"role": "assistant", "content": "done"}))]) as srv:
        code = agent_main(["session", *argv, "-w", str(repo), "--server", srv.url,
                           "--memory", str(tmp_path / "m" / "MEMORY.md")])
    return code, [json.loads(body) for body in srv.received]


def test_resume_continues_a_leaf_and_leaves_the_rest_unchanged(tree, tmp_path):
    s, leaf = tree["session"], tree["first"]
    before = s.path.read_bytes()
    code, sent = _run(tmp_path, ["resume", str(s.path), "--leaf", leaf["id"], "go on"])
    assert code == 0
    assert s.path.read_bytes().startswith(before)  # append-only
    after = Session.open(s.path)
    new = after.entries[len(s.entries):]
    assert new[0]["parentId"] == leaf["id"]
    contents = [m["content"] for m in sent[0]["messages"]]
    assert contents[-3:] == ["first way", "more on the first way", "go on"] and "summary" in contents
    assert len(leaves(after)) == 2  # still two branches: the first one grew


def test_resume_refuses_an_entry_that_is_not_a_leaf(tree, tmp_path, capsys):
    s = tree["session"]
    code, sent = _run(tmp_path, ["resume", str(s.path), "--leaf", tree["result"]["id"], "go on"])
    assert code == 1 and sent == []
    err = capsys.readouterr().err
    assert f"entry {tree['result']['id']} is not a leaf (2 entries follow it)" in err
    assert f"session fork {s.path} --from {tree['result']['id']}" in err


def test_fork_starts_a_new_branch_at_any_entry(tree, tmp_path):
    s = tree["session"]
    code, sent = _run(tmp_path, ["fork", str(s.path), "--from", tree["task"]["id"], "another way"])
    assert code == 0
    assert [m["content"] for m in sent[0]["messages"]][1:] == ["the task", "another way"]
    after = Session.open(s.path)
    assert len(leaves(after)) == 3
    assert after.entries[len(s.entries)]["parentId"] == tree["task"]["id"]


def test_fork_refuses_a_point_where_tool_calls_wait_for_their_results(tree, tmp_path, capsys):
    s = tree["session"]
    assert fork_point_problem(s, tree["result"]["id"]) is None
    assert "c1" in fork_point_problem(s, tree["asks"]["id"])
    code, sent = _run(tmp_path, ["fork", str(s.path), "--from", tree["asks"]["id"], "x"])
    assert code == 1 and sent == [] and "no result yet (c1)" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["resume", "fork"])
def test_unknown_ids_and_missing_files_are_clear_errors(tree, tmp_path, capsys, command):
    flag = "--leaf" if command == "resume" else "--from"
    code, _ = _run(tmp_path, [command, str(tree["session"].path), flag, "ghost", "x"])
    assert code == 1 and f"no entry 'ghost' in {tree['session'].path}" in capsys.readouterr().err
    code, _ = _run(tmp_path, [command, str(tmp_path / "none.jsonl"), flag, "ghost", "x"])
    assert code == 1 and "no session file" in capsys.readouterr().err


def test_resume_and_fork_set_session_and_fork_themselves(tree, tmp_path, capsys):
    code, sent = _run(tmp_path, ["resume", str(tree["session"].path), "--leaf", tree["first"]["id"], "x",
                                 "--session", "other.jsonl"])
    assert code == 1 and sent == [] and "--session is set by this command" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fork", str(tree["session"].path), "--from", tree["task"]["id"]])  # no TASK
    assert "fork needs the TASK" in capsys.readouterr().err


def test_clone_copies_one_path_into_a_new_file(tree, tmp_path, capsys):
    s, out = tree["session"], tmp_path / "clone" / "c.jsonl"
    assert main(["clone", str(s.path), "--leaf", tree["first"]["id"], str(out)]) == 0
    assert f"cloned 8 entries (the path from the root to {tree['first']['id']})" in capsys.readouterr().out
    copy = Session.open(out)
    assert copy.entries == s.path_to(tree["first"]["id"])  # the entries as they were, ids kept
    assert copy.leaf == tree["first"]["id"] and len(leaves(copy)) == 1
    assert copy.messages() == s.messages(tree["first"]["id"])  # the compaction still applies
    assert "0 branch points" in render_tree(copy) and "─ branch" not in render_tree(copy)


def test_clone_never_overwrites_and_names_unknown_ids(tree, tmp_path, capsys):
    s, out = tree["session"], tmp_path / "c.jsonl"
    out.write_text("keep me")
    assert main(["clone", str(s.path), "--leaf", tree["first"]["id"], str(out)]) == 1
    assert "exists; clone writes a new file" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["clone", str(s.path), "--leaf", "ghost", str(tmp_path / "d.jsonl")]) == 1
    assert "no entry 'ghost'" in capsys.readouterr().err and not (tmp_path / "d.jsonl").exists()


def test_clone_leaves_a_torn_last_line_behind(tree, tmp_path, capsys):
    s = tree["session"]
    with open(s.path, "ab") as f:
        f.write(b'{"id": "torn", "par')
    out = tmp_path / "c.jsonl"
    assert main(["clone", str(s.path), "--leaf", tree["second"]["id"], str(out)]) == 0
    assert "dropped an incomplete last line" in capsys.readouterr().err
    assert b"torn" not in out.read_bytes() and ContinuedSession.open(out).dropped is None


@pytest.mark.parametrize("command", ["resume", "fork"])
def test_resume_and_fork_refuse_to_write_into_shipped_data(tmp_path, capsys, command):
    shipped = ROOT / "data" / "recordings" / "t11-smollm2-llamacpp" / "message-day1.jsonl"
    before = shipped.read_bytes()
    leaf = Session.open(shipped).leaf
    flag = "--leaf" if command == "resume" else "--from"
    code, sent = _run(tmp_path, [command, str(shipped), flag, leaf, "go on"])
    err = capsys.readouterr().err
    assert code == 1 and sent == [] and shipped.read_bytes() == before
    assert f"{shipped} is part of the course's shipped data" in err
    assert f"python -m miniagent session clone {shipped} --leaf {leaf} " in err


def test_tree_of_a_tool_call_without_function_names_file_line_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "parentId": null, "type": "system", "content": "x"}\n'
                   '{"id": "b", "parentId": "a", "type": "message", "message": {"role": "assistant", '
                   '"content": "", "tool_calls": [{"id": "c1", "type": "function"}]}}\n')
    assert main(["tree", str(bad)]) == 1
    assert (f"miniagent session: error: {bad}:2: entry 'b': message.tool_calls[0] has no 'function'"
            in capsys.readouterr().err)
