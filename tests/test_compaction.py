import json

import pytest

from miniagent.agents_md import read_agents_md
from miniagent.compaction import (STRUCTURED_REQUEST, SUMMARY_HEADER, SUMMARY_REQUEST, USER_MESSAGES_HEADER,
                                  Compactor, estimate_tokens, model_summariser, round_starts)
from miniagent.loop import run_task
from miniagent.memory import MemoryStore
from miniagent.model import ModelReply
from miniagent.modes import for_mode
from miniagent.session import Session
from miniagent.session_cli import ContinuedSession
from miniagent.tools import Toolbox, Workspace

from helpers import ScriptedModel, answer, tool_call


def summary(text):
    return {"role": "user", "content": f"{SUMMARY_HEADER}\n\n{text}"}


class Summaries:
    """A scripted summariser: returns the given texts in order and remembers what it was asked to summarise."""

    def __init__(self, *texts):
        self.texts, self.seen = list(texts), []

    def __call__(self, messages):
        self.seen.append(messages)
        return self.texts.pop(0)


def _files(n):
    """n tool calls (each reads a file) and a final answer."""
    return [tool_call(f"c{i}", "read_file", path=f"f{i}.txt") for i in range(1, n + 1)] + [answer("done")]


def _run(tmp_path, turns, compactor, mode="frozen", session=None, task="fix it"):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    for i in range(1, 10):
        (repo / f"f{i}.txt").write_text(f"content {i}")
    memory = MemoryStore(tmp_path / "home" / "MEMORY.md")
    provider = for_mode(mode, "base", read_agents_md(repo), memory, workspace=repo)
    model, lines = ScriptedModel(turns), []
    session = session or Session.open(tmp_path / "s.jsonl")
    result = run_task(task, model=model, toolbox=Toolbox(Workspace(repo), memory), session=session,
                      steps=[provider] if compactor is None else [compactor, provider], log=lines.append)
    return result, model.requests, session, lines


def _compactions(session):
    return [e for e in session.path_to() if e["type"] == "compaction"]


# In most tests the budget counts messages (count_tokens=len): a request's size is easy to see.
# Requests without compaction: round r sends system + task + 2 messages per earlier round = 2r messages.

def test_exactly_at_the_budget_nothing_is_compacted(tmp_path):
    _, requests, session, _ = _run(tmp_path, _files(4), Compactor(10, Summaries(), count_tokens=len))
    assert [len(r) for r in requests] == [2, 4, 6, 8, 10]
    assert _compactions(session) == []


def test_one_over_the_budget_the_older_rounds_become_one_summary(tmp_path):
    summarise = Summaries("read f1 and f2")
    _, requests, session, lines = _run(tmp_path, _files(4), Compactor(9, summarise, count_tokens=len))
    assert [len(r) for r in requests] == [2, 4, 6, 8, 6]
    # Round 5: the system prompt, the summary, then the last two rounds word for word.
    assert requests[4] == requests[3][:1] + [summary("read f1 and f2")] + requests[3][6:] + requests[4][-2:]
    assert [m["role"] for m in requests[4]] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    # The summariser saw what the model saw, up to the first kept round.
    assert summarise.seen == [requests[3][:6]]
    entry, = _compactions(session)
    assert entry["tokensBefore"] == 10 and session.by_id[entry["firstKeptId"]]["message"] == requests[4][2]
    assert "round 5: about 10 tokens, over the budget of 9: older rounds replaced by a summary" in lines


def test_fewer_rounds_than_the_kept_number_are_sent_as_they_are(tmp_path):
    _, requests, session, lines = _run(tmp_path, _files(2), Compactor(1, Summaries(), count_tokens=len))
    (tmp_path / "plain").mkdir()
    _, plain, _, _ = _run(tmp_path / "plain", _files(2), None)
    assert requests == plain and _compactions(session) == []
    assert lines[0] == ("round 1: about 2 tokens, over the budget of 1, "
                        "but no round is older than the 2 kept; sent as it is")


def test_a_single_huge_round_is_kept_whole_even_over_the_budget(tmp_path):
    turns = [tool_call("c1", "read_file", path="big.txt"), tool_call("c2", "read_file", path="big.txt"),
             answer("done")]
    (tmp_path / "repo").mkdir()
    big = "x" * 6000  # about 1500 tokens; under read_file's output cap
    (tmp_path / "repo" / "big.txt").write_text(big)
    compactor = Compactor(1000, Summaries("read big.txt once"), keep_rounds=1)
    _, requests, session, lines = _run(tmp_path, turns, compactor)
    over = [line for line in lines if "over the budget" in line]
    # Round 2: over the budget, but its only round is the one to keep: sent as it is.
    assert over[0].startswith("round 2: about") and over[0].endswith("no round is older than the 1 kept; sent as it is")
    assert requests[1][-1] == {"role": "tool", "tool_call_id": "c1", "content": big}
    # Round 3: round 1 is summarised; round 2 is kept word for word, though the request is still over the budget.
    assert over[1].startswith("round 3: about") and over[1].endswith("older rounds replaced by a summary")
    assert requests[2][1:] == [summary("read big.txt once"), turns[1],
                               {"role": "tool", "tool_call_id": "c2", "content": big}]
    assert estimate_tokens(requests[2]) > 1000 and len(_compactions(session)) == 1


def test_a_compaction_of_a_compaction_replaces_the_first_summary(tmp_path):
    summarise = Summaries("S1", "S2", "S3", "S4")
    _, requests, session, _ = _run(tmp_path, _files(5), Compactor(5, summarise, keep_rounds=1, count_tokens=len))
    system = requests[0][0]
    a = {i: tool_call(f"c{i}", "read_file", path=f"f{i}.txt") for i in range(1, 6)}
    t = {i: {"role": "tool", "tool_call_id": f"c{i}", "content": f"content {i}"} for i in range(1, 6)}
    assert requests[2] == [system, summary("S1"), a[2], t[2]]  # round 3: 6 messages > 5
    # Round 4: the second summary replaces the first summary and round 2; round 3 is kept.
    assert summarise.seen[1] == [system, summary("S1"), a[2], t[2]]
    assert requests[3] == [system, summary("S2"), a[3], t[3]]
    assert len(_compactions(session)) == 4  # rounds 3 to 6 each went over


def test_resume_after_compaction_rebuilds_exactly_the_path_the_model_saw(tmp_path):
    _, requests, session, _ = _run(tmp_path, _files(5), Compactor(5, Summaries("S1", "S2", "S3", "S4"),
                                                                   keep_rounds=1, count_tokens=len))
    reloaded = Session.open(session.path)
    assert reloaded.messages() == session.messages() == requests[-1] + [answer("done")]
    # Every request is rebuilt from the file alone, from the entry before its model_call.
    path = reloaded.path_to()
    calls = [i for i, e in enumerate(path) if e["type"] == "model_call"]
    assert [reloaded.messages(path[i - 1]["id"]) for i in calls] == requests
    # Continuing from the leaf sends that path plus the new task.
    _, more, _, _ = _run(tmp_path, [answer("ok")], None, session=reloaded, task="and now this")
    assert more[0] == requests[-1] + [answer("done"), {"role": "user", "content": "and now this"}]


def _by_hand(tmp_path, rounds):
    s = Session.open(tmp_path / "s.jsonl")
    s.append("system", content="sys")
    s.append("message", message={"role": "user", "content": "task"})
    for i in range(1, rounds + 1):
        s.append("model_call", round=i, request={}, response={})
        s.append("message", message=tool_call(f"c{i}", "list_files", path="."))
        s.append("message", message={"role": "tool", "tool_call_id": f"c{i}", "content": f"r{i}"})
    return s


def test_the_session_file_keeps_every_original_entry(tmp_path):
    s = _by_hand(tmp_path, 3)
    before = s.path.read_bytes()
    entry = Compactor(1, Summaries("S")).compact(s, tokens=99)
    after = s.path.read_bytes()
    assert after.startswith(before)  # append-only: only the compaction line is new
    assert [json.loads(line) for line in after[len(before):].splitlines()] == [entry]
    assert entry["parentId"] != entry["firstKeptId"] and entry["tokensBefore"] == 99
    # All original messages are still reachable on the path; the model sees only the summary and the kept rounds.
    assert len([e for e in Session.open(s.path).path_to() if e["type"] == "message"]) == 7
    assert [m["content"] for m in s.messages()] == ["sys", f"{SUMMARY_HEADER}\n\nS", "", "r2", "", "r3"]


def test_unknown_entries_and_a_torn_line_around_a_compaction_are_handled_as_before(tmp_path):
    s = _by_hand(tmp_path, 3)
    s.append("label", name="before compaction")  # a type this version does not know
    Compactor(1, Summaries("S"), keep_rounds=1).compact(s, tokens=50)
    s.append("message", message={"role": "user", "content": "next"})
    s.path.write_bytes(s.path.read_bytes() + b'{"id": "x", "parentId": "y", "ty')
    loaded = ContinuedSession.open(s.path)
    assert "incomplete last line" in str(loaded.dropped)
    assert "label" in [e["type"] for e in loaded.path_to()]  # kept, and ignored by messages()
    assert [m["content"] for m in loaded.messages()] == ["sys", f"{SUMMARY_HEADER}\n\nS", "", "r3", "next"]


def test_after_a_compaction_agents_md_is_re_read_and_frozen_memory_keeps_its_snapshot(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "AGENTS.md").write_text("rules v1")
    turns = [tool_call("c1", "write_file", path="AGENTS.md", content="rules v2"),
             tool_call("c2", "remember", note="a new fact"),
             tool_call("c3", "list_files", path="."), answer("done")]
    _, requests, session, lines = _run(tmp_path, turns, Compactor(6, Summaries("S"), keep_rounds=1, count_tokens=len))
    systems = [r[0]["content"] for r in requests]
    # Round 4 is the first over the budget (8 messages > 6): the compaction brings the new AGENTS.md.
    assert ["rules v2" in s for s in systems] == [False, False, False, True]
    assert all("rules v1" in s for s in systems[:3]) and "a new fact" not in systems[3]  # frozen: snapshot
    types = [e["type"] for e in session.path_to()]
    assert types[types.index("compaction") + 1] == "system_refresh"
    assert "round 4: system prompt refreshed from disk" in lines


def test_agents_md_is_re_read_once_per_new_compaction_not_at_the_next_task(tmp_path):
    """The design learns of a compaction from the session: one it saw already (an earlier task of
    the same conversation) does not make it read AGENTS.md again, only a new one does."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "AGENTS.md").write_text("rules v1")
    memory = MemoryStore(tmp_path / "home" / "MEMORY.md")
    design = for_mode("frozen", "base", read_agents_md(repo), memory, workspace=repo)
    session, toolbox = Session.open(tmp_path / "s.jsonl"), Toolbox(Workspace(repo), memory)
    compactor = Compactor(6, Summaries("S"), keep_rounds=1, count_tokens=len)
    run_task("one", model=ScriptedModel(_files(3)), toolbox=toolbox, session=session, steps=[compactor, design])
    assert [e["type"] for e in session.path_to()].count("compaction") == 1
    (repo / "AGENTS.md").write_text("rules v2")
    second = ScriptedModel([answer("ok")])
    run_task("two", model=second, toolbox=toolbox, session=session, steps=[design])  # no new compaction
    assert "rules v1" in second.requests[0][0]["content"]


def test_refresh_memory_is_still_read_before_every_call_with_compaction(tmp_path):
    turns = [tool_call("c1", "remember", note="a new fact"), tool_call("c2", "list_files", path="."), answer("done")]
    _, requests, _, _ = _run(tmp_path, turns, Compactor(4, Summaries("S"), keep_rounds=1, count_tokens=len),
                             mode="refresh")
    assert ["a new fact" in r[0]["content"] for r in requests] == [False, True, True]


def test_the_model_summariser_sends_the_older_messages_and_the_request_and_is_recorded(tmp_path):
    s = _by_hand(tmp_path, 3)
    model = ScriptedModel([answer("  the model's summary\n")])
    entry = Compactor(1, model_summariser(model)).compact(s, tokens=40)
    sent, = model.requests
    assert sent[:-1] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
                         tool_call("c1", "list_files", path="."),
                         {"role": "tool", "tool_call_id": "c1", "content": "r1"}]
    assert sent[-1] == {"role": "user", "content": SUMMARY_REQUEST}
    assert entry["message"] == summary("the model's summary")
    assert entry["request"]["tools"] is None and entry["request"]["messages"] == sent  # no tools: a text answer
    assert "usage" in entry["response"]


def test_a_round_starts_with_the_user_messages_it_answers():
    chat = [{"role": "user"}, {"role": "assistant"}, {"role": "tool"}, {"role": "assistant"}, {"role": "tool"},
            {"role": "user"}, {"role": "user"}, {"role": "assistant"}, {"role": "user"}]
    assert round_starts(chat) == [0, 3, 5]


def test_estimate_counts_utf8_bytes_so_chinese_is_not_undercounted():
    ascii_text, chinese = [{"role": "user", "content": "x" * 400}], [{"role": "user", "content": "字" * 400}]
    assert estimate_tokens(ascii_text) == 109  # 435 bytes of JSON / 4, rounded up
    assert estimate_tokens(chinese) - estimate_tokens(ascii_text) == 200  # 800 more bytes


def test_at_least_one_round_is_kept():
    with pytest.raises(ValueError, match="keep_rounds must be at least 1"):
        Compactor(100, Summaries(), keep_rounds=0)


def test_the_message_count_trigger_compacts_however_short_the_messages_are(tmp_path):
    summarise = Summaries("S1", "S2")
    _, requests, session, lines = _run(tmp_path, _files(4), Compactor(10**6, summarise, max_messages=5))
    # Round 3 holds 6 messages, over 5, but only 2 rounds are done: nothing older than the kept ones yet.
    assert [len(r) for r in requests] == [2, 4, 6, 6, 6]
    assert len(_compactions(session)) == 2
    assert "round 4: 8 messages, over the limit of 5: older rounds replaced by a summary" in lines


def test_without_a_message_limit_the_requests_are_unchanged(tmp_path):
    (tmp_path / "a").mkdir()
    _, limited, _, _ = _run(tmp_path / "a", _files(3), Compactor(10**6, Summaries(), max_messages=None))
    (tmp_path / "b").mkdir()
    _, plain, _, _ = _run(tmp_path / "b", _files(3), None)
    assert limited == plain


@pytest.mark.parametrize("bad", [0, -3, True, 2.5, "8"])
def test_a_bad_message_limit_is_refused(bad):
    with pytest.raises(ValueError, match="max_messages"):
        Compactor(100, Summaries(), max_messages=bad)


def test_threshold_leaves_the_reserve_free_and_refuses_a_reserve_as_big_as_the_window():
    from miniagent.compaction import threshold
    assert threshold(3072, 768) == 2304 and threshold(100, 0) == 100
    for window, reserve in [(100, 100), (100, -1)]:
        with pytest.raises(ValueError, match="reserve"):
            threshold(window, reserve)


def test_the_summariser_with_tools_sends_them_so_the_prompt_starts_like_the_agents(tmp_path):
    s = _by_hand(tmp_path, 3)
    tools = [{"type": "function", "function": {"name": "list_files", "parameters": {"type": "object"}}}]
    model = ScriptedModel([answer("summary")])
    entry = Compactor(1, model_summariser(model, tools=tools)).compact(s, tokens=40)
    assert entry["request"]["tools"] == tools
    assert entry["request"]["messages"][-1] == {"role": "user", "content": SUMMARY_REQUEST}


def test_a_summary_reply_without_text_is_refused_not_a_crash(tmp_path):
    s = _by_hand(tmp_path, 3)
    before = s.messages()
    model = ScriptedModel([tool_call("c9", "list_files", path=".") | {"content": None}])
    entry = Compactor(1, model_summariser(model)).compact(s, tokens=40)
    assert entry["type"] == "compaction_refused" and entry["reason"] == "the summary is empty"
    assert "response" in entry  # the summary call was paid for: it stays on record (and in the ledger)
    assert s.messages() == before  # the history is kept


@pytest.mark.parametrize("text", ["", "   \n", None])
def test_an_empty_summary_keeps_the_task_and_says_so(tmp_path, text):
    """Issue 48: an empty summary used to replace the history; the task vanished from every later request."""
    compactor = Compactor(5, lambda messages: text, count_tokens=len)
    result, requests, session, lines = _run(tmp_path, _files(4), compactor, task="fix it")
    assert result == "done"
    assert all(r[1] == {"role": "user", "content": "fix it"} for r in requests)  # never lost
    refused = [e for e in session.entries if e["type"] == "compaction_refused"]
    assert refused and not _compactions(session)
    assert all(e["reason"] == "the summary is empty" for e in refused)
    assert any("the summary was refused (the summary is empty)" in line for line in lines)


def test_a_summary_longer_than_the_history_it_replaces_is_refused(tmp_path):
    s = _by_hand(tmp_path, 3)
    before = s.messages()
    entry = Compactor(1, Summaries("x" * 4000)).compact(s, tokens=99)
    assert entry["type"] == "compaction_refused" and "longer than the history" in entry["reason"]
    assert s.messages() == before
    short = Compactor(1, Summaries("S")).compact(s, tokens=99)  # a real summary still compacts
    assert short["type"] == "compaction"


def test_a_refused_summary_call_counts_in_the_ledger(tmp_path):
    from miniagent.session import tokens_spent, usage_ledger
    s = _by_hand(tmp_path, 3)
    model = ScriptedModel([answer("")])
    model.complete = lambda messages, tools=None: ModelReply(answer(""), {}, {"usage": {"prompt_tokens": 30,
                                                                                         "completion_tokens": 0}})
    Compactor(1, model_summariser(model)).compact(s, tokens=40)
    assert usage_ledger(s.entries)["prompt_tokens"] == 30 and tokens_spent(s.entries) is None  # {} usage above


def test_the_structured_request_is_opt_in_and_sent_in_place_of_the_short_one(tmp_path):
    s = _by_hand(tmp_path, 3)
    model = ScriptedModel([answer("## Rules\n(none)")])
    entry = Compactor(1, model_summariser(model, request=STRUCTURED_REQUEST)).compact(s, tokens=40)
    assert model.requests[0][-1] == {"role": "user", "content": STRUCTURED_REQUEST}
    assert entry["message"] == summary("## Rules\n(none)") and "userMessages" not in entry
    assert STRUCTURED_REQUEST.index("## Rules") < STRUCTURED_REQUEST.index("## Task")  # rules first


def test_kept_user_messages_survive_every_compaction_word_for_word_whatever_the_summary_says(tmp_path):
    summarise = Summaries("S1", "S2", "S3")
    compactor = Compactor(5, summarise, keep_rounds=1, count_tokens=len, keep_user_messages=True)
    _, requests, session, _ = _run(tmp_path, _files(4), compactor, task="fix it\nnever touch the tests")
    entries = _compactions(session)
    assert len(entries) == 3 and all(e["userMessages"] == ["fix it\nnever touch the tests"] for e in entries)
    last = requests[-1][1]["content"]  # the third summary message, after two summaries of summaries
    assert last == (f"{SUMMARY_HEADER}\n\n{USER_MESSAGES_HEADER}\n\n> fix it\n> never touch the tests\n\nS3")
    assert summarise.seen[1][1]["content"].endswith("S1")  # the second summary call sees the first summary


def test_without_keeping_user_messages_the_task_lives_only_in_the_summary(tmp_path):
    summarise = Summaries("S1", "S2", "S3")
    _, requests, session, _ = _run(tmp_path, _files(4), Compactor(5, summarise, keep_rounds=1, count_tokens=len),
                                   task="never touch the tests")
    assert not any("never touch" in m.get("content", "") for m in requests[-1])
    assert all("userMessages" not in e for e in _compactions(session))
