"""A4·3's variant (miniagent/variants/transcript.py): the conversation re-rendered into one user message.

Offline: what the rendering keeps, clips and leaves out; that the loop's session is unchanged; bad
input gets a clear error; and the default request (no variant) is untouched.
"""
import json

import pytest

from miniagent.model import ModelReply
from miniagent.variants import transcript as tr


def call(call_id, name, **args):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def conversation(n_reads: int, text: str = "x" * 400) -> list[dict]:
    out = [{"role": "system", "content": "SYSTEM"}, {"role": "user", "content": "the task"}]
    for i in range(n_reads):
        out.append({"role": "assistant", "content": "reading", "tool_calls": [call(f"c{i}", "read_file", path=f"f{i}")]})
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"{i}:{text}"})
    return out


def test_the_system_message_stays_and_the_rest_becomes_one_user_message():
    sent = tr.render(conversation(2))
    assert [m["role"] for m in sent] == ["system", "user"] and sent[0]["content"] == "SYSTEM"
    body = sent[1]["content"]
    assert body.startswith("Transcript:\n[user] the task\n[tool:read_file] {\"path\": \"f0\"}")
    assert body.endswith("Current request:\nthe task") and "reading" not in body  # calls show through their results


def test_recent_entries_are_whole_and_older_ones_are_clipped():
    body = tr.render(conversation(tr.RECENT + 1))[1]["content"]
    # entries: the task and RECENT + 1 results; the first result is older than the last RECENT
    assert f"0:{'x' * (tr.OLD_TOOL_CHARS - 2)}\n...[" in body
    assert f"{tr.RECENT}:{'x' * 400}" in body


def test_an_old_entry_changes_when_it_leaves_the_recent_window():
    # the task and RECENT results are all recent; one more result pushes the task and the first result out
    before = tr.render(conversation(tr.RECENT))[1]["content"]
    after = tr.render(conversation(tr.RECENT + 1))[1]["content"]
    common = next(i for i, (a, b) in enumerate(zip(before, after)) if a != b)
    assert after[:common].endswith("0:" + "x" * (tr.OLD_TOOL_CHARS - 2))  # the first result got clipped


def test_an_old_second_read_of_the_same_file_is_left_out_unless_it_changed_in_between():
    msgs = [{"role": "user", "content": "t"}]
    for i, (name, path) in enumerate([("read_file", "a"), ("read_file", "a"), ("edit_file", "a"),
                                      ("read_file", "a")] + [("run_command", "")] * tr.RECENT):
        msgs += [{"role": "assistant", "content": "", "tool_calls": [call(f"c{i}", name, path=path)]},
                 {"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i}"}]
    body = tr.render(msgs)[-1]["content"]
    assert "result 0" in body and "result 1" not in body and "result 2" in body and "result 3" in body


def test_the_notes_block_comes_first_and_holds_the_last_results():
    body = tr.render(conversation(tr.NOTES + 2, "y"), with_notes=True)[1]["content"]
    notes = body.split("\n\nTranscript:")[0].splitlines()
    assert notes[0] == "Notes:" and len(notes) == 1 + tr.NOTES and notes[-1] == f"- read_file: {tr.NOTES + 1}:y"
    assert tr.render(conversation(0), with_notes=True)[1]["content"].startswith("Notes:\n- none\n\nTranscript:")


def test_bad_input_gets_a_clear_error():
    with pytest.raises(ValueError, match="answers no call"):
        tr.render([{"role": "user", "content": "t"}, {"role": "tool", "tool_call_id": "nope", "content": "r"}])
    with pytest.raises(ValueError, match="no user message"):
        tr.render([{"role": "system", "content": "s"}])


def test_the_wrapper_sends_the_rendering_and_returns_the_models_reply():
    seen = []

    class Model:
        def complete(self, messages, tools=None, **params):
            seen.append((messages, tools, params))
            return ModelReply({"role": "assistant", "content": "ok"}, {"messages": messages}, {})

    msgs = conversation(1)
    reply = tr.RenderedTranscript(Model(), with_notes=True).complete(msgs, [{"type": "function"}], max_tokens=1)
    assert reply.message["content"] == "ok" and seen[0][1] == [{"type": "function"}] and seen[0][2] == {"max_tokens": 1}
    assert seen[0][0] == tr.render(msgs, True) and len(msgs) == 4  # the loop's list is not touched
