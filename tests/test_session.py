import json
import re
from pathlib import Path

import pytest

from miniagent import children, compaction, injection  # noqa: F401 (they say what their entries mean)
from miniagent.session import KINDS, Session, SessionFileError
from miniagent.session_cli import ContinuedSession

ROOT = Path(__file__).resolve().parents[1]


def _user(session, text):
    return session.append("message", message={"role": "user", "content": text})


def test_entries_form_a_chain_and_survive_reload(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    a = _user(s, "a")
    b = _user(s, "b")
    assert b["parentId"] == a["id"]
    again = Session.open(s.path)
    assert [e["id"] for e in again.path_to()] == [e["id"] for e in s.entries]
    assert again.messages() == [{"role": "system", "content": "sys"},
                                {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]


def test_fork_from_an_earlier_entry_branches_without_rewriting(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    a = _user(s, "a")
    _user(s, "b on the first branch")
    before = s.path.read_bytes()
    s.fork(a["id"])
    c = _user(s, "c on the second branch")
    assert s.path.read_bytes().startswith(before)  # append-only
    assert c["parentId"] == a["id"]
    assert [m["content"] for m in s.messages()] == ["sys", "a", "c on the second branch"]
    # The first branch is still there, reachable from its own leaf.
    first_leaf = [e for e in s.entries if e.get("message", {}).get("content") == "b on the first branch"][0]
    assert [m["content"] for m in s.messages(first_leaf["id"])] == ["sys", "a", "b on the first branch"]
    reloaded = Session.open(s.path)
    assert [m["content"] for m in reloaded.messages()] == ["sys", "a", "c on the second branch"]


def test_fork_from_an_unknown_entry_is_a_clear_error(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    with pytest.raises(KeyError, match="no entry 'nope'") as caught:
        s.fork("nope")
    assert str(caught.value) == f"no entry 'nope' in {s.path}"  # no quotes around the message


def test_system_refresh_replaces_the_system_message(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="v1")
    _user(s, "hi")
    s.append("system_refresh", content="v2")
    assert s.messages()[0] == {"role": "system", "content": "v2"}


def test_a_torn_last_line_is_dropped_reported_and_kept_aside(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    _user(s, "complete")
    whole = s.path.read_bytes()
    torn = b'{"id": "x", "parentId": "y", "type": "mess'
    s.path.write_bytes(whole + torn)
    with pytest.raises(SessionFileError, match="s.jsonl:3: not a valid session entry"):
        Session.open(s.path)  # A1's session reads the files it wrote; a continued one (A6·4) mends them
    loaded = ContinuedSession.open(s.path)
    assert [m["content"] for m in loaded.messages()] == ["sys", "complete"]
    assert loaded.dropped.line == 3 and loaded.dropped.data == torn
    assert "incomplete last line (line 3" in str(loaded.dropped)
    assert s.path.read_bytes() == whole + torn  # loading changes nothing
    _user(loaded, "after recovery")
    assert (tmp_path / f"s.jsonl.torn-{len(whole)}").read_bytes() == torn
    assert [m["content"] for m in Session.open(s.path).messages()] == ["sys", "complete", "after recovery"]


def test_a_complete_last_line_without_newline_is_kept(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    s.path.write_bytes(s.path.read_bytes().rstrip(b"\n"))
    loaded = ContinuedSession.open(s.path)
    assert loaded.dropped is None
    _user(loaded, "next")
    assert len(Session.open(s.path).entries) == 2


def test_a_corrupt_line_in_the_middle_names_file_and_line(tmp_path):
    path = tmp_path / "s.jsonl"
    good = json.dumps({"id": "a", "parentId": None, "type": "system", "content": "x"})
    path.write_text(good + "\nnot json\n" + good.replace('"a"', '"b"') + "\n")
    with pytest.raises(SessionFileError, match=r"s\.jsonl:2: not a valid session entry"):
        Session.open(path)


def test_a_dangling_parent_is_refused(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "a", "parentId": "ghost", "type": "system", "content": "x"}) + "\n"
                    + json.dumps({"id": "b", "parentId": "a", "type": "system", "content": "x"}) + "\n")
    with pytest.raises(SessionFileError, match="parentId 'ghost' is not an earlier entry"):
        Session.open(path)


def test_a_compaction_entry_replaces_the_messages_before_the_first_kept_one(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    _user(s, "a")
    b = _user(s, "b")
    _user(s, "c")
    before = s.path.read_bytes()
    summary = {"role": "user", "content": "summary of a"}
    s.append("compaction", message=summary, firstKeptId=b["id"], tokensBefore=9)
    _user(s, "d")
    assert s.path.read_bytes().startswith(before)  # nothing deleted
    assert [m["content"] for m in s.messages()] == ["sys", "summary of a", "b", "c", "d"]
    assert [m["content"] for m in Session.open(s.path).messages()] == ["sys", "summary of a", "b", "c", "d"]
    system, chat = s.visible()
    assert system == "sys" and [entry_id for entry_id, _ in chat][:2] == [s.entries[4]["id"], b["id"]]


def test_a_compaction_that_keeps_from_an_entry_off_its_path_is_a_clear_error(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    _user(s, "a")
    s.append("compaction", message={"role": "user", "content": "S"}, firstKeptId="ghost", tokensBefore=1)
    with pytest.raises(SessionFileError, match=r"s\.jsonl: compaction \w+ keeps from 'ghost', which is not a message"):
        Session.open(s.path).messages()


# -- bad input (issue 21) --------------------------------------------------------------------------

def _lines(*entries):
    return "".join(json.dumps(e) + "\n" for e in entries)


def test_a_duplicate_entry_id_is_refused_naming_both_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(_lines({"id": "a", "parentId": None, "type": "system", "content": "x"},
                           {"id": "b", "parentId": "a", "type": "message", "message": {"role": "user", "content": "1"}},
                           {"id": "b", "parentId": "a", "type": "message", "message": {"role": "user", "content": "2"}}))
    with pytest.raises(SessionFileError, match=rf"{path}:3: field id: entry id 'b' is already used on line 2"):
        Session.open(path)


@pytest.mark.parametrize("message, problem", [
    ({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function"}]},
     "message.tool_calls[0] has no 'function'"),
    ({"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": {"name": "f"}}]},
     "message.tool_calls[0].function has no 'arguments'"),
    ({"role": "assistant", "content": "", "tool_calls": "f()"}, "message.tool_calls is not a list"),
    ({"content": "x"}, "message has no 'role'"),
    ("hello", "message is not an object"),
])
def test_a_message_entry_the_agent_cannot_use_names_file_line_and_field(tmp_path, message, problem):
    path = tmp_path / "s.jsonl"
    path.write_text(_lines({"id": "a", "parentId": None, "type": "system", "content": "x"},
                           {"id": "b", "parentId": "a", "type": "message", "message": message},
                           {"id": "c", "parentId": "b", "type": "system_refresh", "content": "y"}))
    with pytest.raises(SessionFileError) as caught:
        Session.open(path)
    assert str(caught.value).startswith(f"{path}:2: entry 'b': {problem}")


@pytest.mark.parametrize("entry, problem", [
    ({"id": "b", "parentId": "a", "content": "x"}, "entry 'b' has no 'type'"),
    ({"id": "b", "parentId": "a", "type": "system"}, "entry 'b': 'content' must be a string"),
    ({"id": "b", "parentId": "a", "type": "message_refresh", "message": {"role": "user", "content": "x"}},
     "entry 'b': 'targetId' must be a string"),
])
def test_other_fields_the_agent_reads_are_checked_on_load(tmp_path, entry, problem):
    path = tmp_path / "s.jsonl"
    path.write_text(_lines({"id": "a", "parentId": None, "type": "system", "content": "x"}, entry))
    with pytest.raises(SessionFileError, match=re.escape(f"{path}:2: {problem}")):
        Session.open(path)


# JSON-lines data files that are not sessions, each with what it is instead.
NOT_SESSIONS = {
    "data/a2/call-shapes/rows.jsonl": "the live model's replies of A2·1, one per line (chapters/a2/experiments/call_shapes.py)",
    "data/recordings/a9-eval-qwen2.5-coder-0.5b-llamacpp/results.jsonl":
        "A9's result rows, one per run (prefixlab/eval/rows.py checks them; data/recordings/FORMAT.md)",
}


def test_every_shipped_session_file_still_loads():
    files = sorted(ROOT.glob("data/**/*.jsonl"))
    assert files
    assert all((ROOT / name).is_file() for name in NOT_SESSIONS)  # the list names real files, no stale skips
    for path in files:
        if path.relative_to(ROOT).as_posix() not in NOT_SESSIONS:
            Session.open(path).messages()


def test_forking_a_session_file_that_does_not_exist_says_so(tmp_path):
    s = Session.open(tmp_path / "gone.jsonl")
    with pytest.raises(KeyError) as caught:
        s.fork("abc")
    assert str(caught.value) == f"no entry 'abc': the session file {s.path} does not exist"


def test_a_session_file_deleted_while_the_session_runs_is_a_clear_error(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    s.path.unlink()
    with pytest.raises(SessionFileError, match="was deleted or moved while the session was running"):
        s.append("message", message={"role": "user", "content": "x"})
    assert not s.path.exists()  # an entry whose parent is gone would make the file unreadable


def test_the_usage_ledger_adds_up_every_answered_call_on_every_branch(tmp_path):
    from miniagent.session import tokens_used, usage_ledger

    def response(prompt, cached, completion):
        return {"usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                          "prompt_tokens_details": {"cached_tokens": cached}}}

    s = Session.open(tmp_path / "s.jsonl")
    s.append("message", message={"role": "user", "content": "hi"})
    first = s.append("model_call", round=1, request={}, response=response(100, 0, 5))
    s.append("model_call", round=2, request={}, response=response(150, 99, 3))
    s.fork(first["id"])  # a branch: its call was paid for too
    s.append("model_call", round=2, request={}, response=response(120, 99, 2))
    s.append("model_call", round=3, request={}, error={"status": 400, "body": {}})  # refused: no usage
    s.append("compaction", firstKeptId="x", message={"role": "user", "content": "s"}, request={},
             response={"usage": {"prompt_tokens": 50, "completion_tokens": 10}})
    ledger = usage_ledger(Session.open(tmp_path / "s.jsonl").entries)
    assert ledger == {"calls": 4, "prompt_tokens": 420, "cached_tokens": 198, "completion_tokens": 20}
    assert tokens_used(response(100, 0, 5)) == 105 and tokens_used({}) == 0


def test_a_last_line_that_is_no_entry_at_all_is_damage_not_a_torn_write(tmp_path):
    """Issue 48: a binary file was read as a session whose only line was torn (0 entries, exit 0)."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(SessionFileError, match="s.jsonl:1: not a valid session entry"):
        Session.open(path)
    with pytest.raises(SessionFileError, match="s.jsonl:1: not a valid session entry"):
        ContinuedSession.open(path)
    path.write_bytes(b'{"type": "session", "id": "a", "par')  # a cut-off write is still kept aside
    assert ContinuedSession.open(path).dropped is not None


@pytest.mark.parametrize("kind", ["compaction", "message_refresh", "child"])
def test_an_entry_type_no_imported_module_reads_is_an_error_not_skipped(tmp_path, monkeypatch, kind):
    # A1's session knows A1's entries; a later chapter's module says what its own mean. Read without
    # that module, such an entry would be skipped and the model shown the wrong chat or the wrong bill.
    s = Session.open(tmp_path / "s.jsonl")
    first = _user(s, "a")
    extra = {"compaction": {"message": {"role": "user", "content": "sum"}, "firstKeptId": first["id"]},
             "message_refresh": {"message": {"role": "user", "content": "b"}, "targetId": first["id"]},
             "child": {"usage": {"calls": 1, "prompt_tokens": 5, "completion_tokens": 1}}}[kind]
    s.append(kind, **extra)
    monkeypatch.delitem(KINDS, kind)
    with pytest.raises(SessionFileError, match=f"of type '{kind}', which no module imported here reads"):
        s.messages()
    from miniagent.session import usage_ledger
    with pytest.raises(SessionFileError, match="import the module that writes it"):
        usage_ledger(s.entries)
