"""The memory designs of miniagent/injection.py and miniagent/variants/, driven through the real loop with a scripted model."""
import json

import pytest

from miniagent.compaction import SUMMARY_HEADER, Compactor
from miniagent.injection import Frozen, MemoryInjection
from miniagent.loop import run_task
from miniagent.memory import ENTRY_DELIMITER, MemoryStore
from miniagent.modes import DESIGNS, MODES, for_mode
from miniagent.prompt import EMPTY_MEMORY, MEMORY_HEADER
from miniagent.session import Session, SessionFileError
from miniagent.tools import Toolbox, Workspace
from miniagent.variants.memory_timing import MEMORY_UPDATE, TASK_HEADER, AfterTools, Append, Refresh, with_memory
from miniagent.variants.retrieve_memory import Retrieve
from miniagent.variants.select_memory import Select

from helpers import ScriptedModel, answer, tool_call

NOTE = "Run the tests with: python -m pytest -q tests"
DAY1 = [tool_call("c1", "list_files", path="."),
        tool_call("c2", "remember", note=NOTE),
        tool_call("c3", "read_file", path="app.py"),
        answer("done")]


def _day(tmp_path, mode, turns, session_name="s.jsonl", task="fix it", compactor=None, session=None):
    repo = tmp_path / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    (repo / "app.py").write_text("print('hi')\n")
    memory = MemoryStore(tmp_path / "home" / "MEMORY.md")
    model, lines = ScriptedModel(turns), []
    session = session or Session.open(tmp_path / session_name)
    design = for_mode(mode, "base", "Answer briefly.", memory)
    run_task(task, model=model, toolbox=Toolbox(Workspace(repo), memory), session=session,
             steps=[design] if compactor is None else [compactor, design], log=lines.append)
    return model.requests, session, lines


def _types(session):
    return [e["type"] for e in session.path_to()]


def _is_prefix(shorter, longer):
    return longer[:len(shorter)] == shorter


def test_every_mode_has_one_class_with_the_same_interface(tmp_path):
    assert MODES == ("refresh", "frozen", "append", "after-tools", "select", "retrieve")
    assert [DESIGNS[m] for m in MODES] == [Refresh, Frozen, Append, AfterTools, Select, Retrieve]
    store = MemoryStore(tmp_path / "MEMORY.md")
    for mode in MODES:
        design = for_mode(mode, "base", "rules", store)
        assert isinstance(design, MemoryInjection) and design.mode == mode
        assert design.user_message("task", [("x", {"role": "user", "content": "earlier"})]) == "task"
        assert design.updates([]) == []
    with pytest.raises(NotImplementedError):
        MemoryInjection("base", "rules", store).current()


# -- append -------------------------------------------------------------------------------------

def test_append_adds_the_note_at_the_end_and_never_changes_what_was_sent(tmp_path):
    requests, session, lines = _day(tmp_path, "append", DAY1)
    systems = {r[0]["content"] for r in requests}
    assert len(systems) == 1 and NOTE not in systems.pop()  # the system prompt is frozen
    update = {"role": "user", "content": MEMORY_UPDATE + NOTE}
    # Written while round 2's tools ran: round 3 ends with the tool result, then the update.
    assert requests[2][-2]["content"].startswith("Saved to MEMORY.md") and requests[2][-1] == update
    assert [update in r for r in requests] == [False, False, True, True]
    # Every request starts with the whole previous one: nothing before the end ever changes.
    assert all(_is_prefix(a, b) for a, b in zip(requests, requests[1:]))
    assert "system_refresh" not in _types(session) and "message_refresh" not in _types(session)
    assert f"round 3: added a user message: {MEMORY_UPDATE}{NOTE[:40]}" in " ".join(lines)


def test_append_next_session_has_the_note_in_the_system_prompt_and_no_update(tmp_path):
    _day(tmp_path, "append", DAY1, "day1.jsonl")
    requests, _, _ = _day(tmp_path, "append", [answer("day 2 done")], "day2.jsonl")
    assert NOTE in requests[0][0]["content"]
    assert not any(m["content"].startswith(MEMORY_UPDATE) for m in requests[0][1:])


def test_append_sends_a_note_once_and_not_one_the_snapshot_has(tmp_path):
    store = MemoryStore(tmp_path / "home" / "MEMORY.md")
    store.add("old fact")
    turns = [tool_call("c1", "remember", note="old fact"), tool_call("c2", "remember", note=NOTE),
             tool_call("c3", "remember", note=f"  {NOTE}  "), answer("done")]
    requests, _, _ = _day(tmp_path, "append", turns)
    updates = [m["content"] for m in requests[-1] if m["content"].startswith(MEMORY_UPDATE)]
    assert updates == [MEMORY_UPDATE + NOTE]  # "old fact" is in the snapshot; the repeat changed nothing


def test_append_carries_what_the_store_holds_also_a_note_written_elsewhere(tmp_path):
    store = MemoryStore(tmp_path / "MEMORY.md")
    design = for_mode("append", "base", "", store)
    store.add("from another session")
    store.add("  mine, with spaces  ")
    assert design.updates([]) == [(None, {"role": "user", "content": MEMORY_UPDATE + ENTRY_DELIMITER.join(
        ["from another session", "mine, with spaces"])})]
    shown = [("u1", {"role": "user", "content": MEMORY_UPDATE + "from another session"})]
    assert design.updates(shown) == [(None, {"role": "user", "content": MEMORY_UPDATE + "mine, with spaces"})]


def test_append_sends_an_update_again_when_a_compaction_summarised_it_away(tmp_path):
    turns = [tool_call("c1", "remember", note=NOTE)] + [tool_call(f"c{i}", "list_files", path=".")
                                                         for i in range(2, 6)] + [answer("done")]
    requests, session, _ = _day(tmp_path, "append", turns, compactor=Compactor(7, lambda m: "S", keep_rounds=1,
                                                                               count_tokens=len))
    update = {"role": "user", "content": MEMORY_UPDATE + NOTE}
    assert all(update in r for r in requests[1:])  # after every compaction too
    assert all(r.count(update) == 1 for r in requests[1:])
    sent = [e for e in session.path_to() if e["type"] == "message" and e["message"] == update]
    assert len(sent) >= 2 and "compaction" in _types(session)  # the summary swallowed the first one


# -- after-tools --------------------------------------------------------------------------------

def test_after_tools_keeps_the_memory_out_of_the_system_prompt_and_in_the_first_user_message(tmp_path):
    requests, session, lines = _day(tmp_path, "after-tools", DAY1)
    systems = {r[0]["content"] for r in requests}
    assert len(systems) == 1 and MEMORY_HEADER not in systems.pop()
    firsts = [r[1]["content"] for r in requests]
    assert firsts[0] == f"{MEMORY_HEADER}\n\n{EMPTY_MEMORY}\n\n{TASK_HEADER}\n\nfix it"
    assert firsts[2:] == [f"{MEMORY_HEADER}\n\n{NOTE}\n\n{TASK_HEADER}\n\nfix it"] * 2
    # Only the first user message changed: everything after it is what the previous request had.
    assert requests[2][:1] == requests[1][:1] and requests[2][2:len(requests[1])] == requests[1][2:]
    refresh, = [e for e in session.path_to() if e["type"] == "message_refresh"]
    task_entry = session.path_to()[1]
    assert refresh["targetId"] == task_entry["id"] and task_entry["message"]["content"] == firsts[0]
    assert session.messages()[1]["content"] == firsts[2]  # the file keeps both, the model sees the new one
    assert any(line.startswith(f"round 3: replaced message {task_entry['id']}: # Memory") for line in lines)


def test_after_tools_next_session_starts_with_the_note_and_never_rewrites(tmp_path):
    _day(tmp_path, "after-tools", DAY1, "day1.jsonl")
    requests, session, _ = _day(tmp_path, "after-tools", [answer("day 2 done")], "day2.jsonl", task="add K")
    assert requests[0][1]["content"] == with_memory(NOTE, "add K")
    assert "message_refresh" not in _types(session)


def test_after_tools_rebuilds_the_block_and_keeps_the_task_word_for_word(tmp_path):
    task = f"fix it\n\n{TASK_HEADER}\n\nthe task may contain our own header"
    turns = [tool_call("c1", "remember", note="first"), tool_call("c2", "remember", note="second"), answer("done")]
    requests, session, _ = _day(tmp_path, "after-tools", turns, task=task)
    assert [r[1]["content"] for r in requests] == [with_memory("", task), with_memory("first", task),
                                                  with_memory(ENTRY_DELIMITER.join(["first", "second"]), task)]
    assert _types(session).count("message_refresh") == 2


def test_after_tools_continuing_a_session_keeps_one_block_in_the_first_message(tmp_path):
    _, session, _ = _day(tmp_path, "after-tools", DAY1)
    requests, _, _ = _day(tmp_path, "after-tools", [tool_call("c9", "remember", note="later"), answer("ok")],
                          task="and now this", session=Session.open(session.path))
    first = requests[-1][1]["content"]
    assert first == with_memory(ENTRY_DELIMITER.join([NOTE, "later"]), "fix it")
    assert requests[-1][-3] == {"role": "user", "content": "and now this"}  # a later user message stays as typed


def test_after_tools_after_a_compaction_the_summary_carries_the_memory(tmp_path):
    turns = [tool_call("c1", "remember", note=NOTE)] + [tool_call(f"c{i}", "list_files", path=".")
                                                         for i in range(2, 6)] + [answer("done")]
    requests, session, _ = _day(tmp_path, "after-tools", turns,
                                compactor=Compactor(7, lambda m: "S", keep_rounds=1, count_tokens=len))
    compacted = [r for r in requests if SUMMARY_HEADER in r[1]["content"]]
    assert compacted and all(r[1]["content"] == with_memory(NOTE, f"{SUMMARY_HEADER}\n\nS") for r in compacted)
    assert all(r[1]["content"].count(MEMORY_HEADER) == 1 for r in requests)


# -- the session entry a rewrite leaves ---------------------------------------------------------

def test_a_message_refresh_of_a_message_not_on_the_path_is_a_clear_error(tmp_path):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    s.append("message", message={"role": "user", "content": "task"})
    s.append("message_refresh", targetId="nope", message={"role": "user", "content": "x"})
    with pytest.raises(SessionFileError, match="message_refresh .* replaces 'nope'"):
        Session.open(s.path).messages()


def test_frozen_and_refresh_write_the_same_entries_as_before(tmp_path):
    # The two designs of the shipped recording never add or replace a message.
    for mode in ("frozen", "refresh"):
        _, session, _ = _day(tmp_path / mode, mode, DAY1)
        lines = [json.loads(line) for line in session.path.read_text().splitlines()]
        assert {e["type"] for e in lines} <= {"system", "system_refresh", "message", "model_call"}
        assert [e["message"]["content"] for e in lines if e["type"] == "message"][0] == "fix it"
