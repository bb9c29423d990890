"""``python -m prefixlab bill``: every shipped recording billed and reconciled with its recorded usage to
the token; both usage conventions; child sessions (synthetic files, the contract of CHILD-FORMAT);
clear errors on bad input."""
import json
import shutil
from pathlib import Path

import pytest

from miniagent.session import usage_ledger
from prefixlab.__main__ import main as cli
from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill as billing
from prefixlab.presenting.bill import BillError, Usage, normalize
from prefixlab.recording.format import find_recordings, load

SHIPPED = find_recordings(RECORDINGS)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_every_shipped_recording_is_billed_to_the_token(path):
    b = billing.bill(path)
    rec = load(path)
    answered = [c for c in rec.calls if c.response is not None]
    # the server's own usage, request by request, in the global order
    assert b.total.calls == len(answered)
    assert b.total.prompt == sum(c.prompt_tokens for c in answered)
    assert b.total.cache_read == sum(c.cached_tokens or 0 for c in answered)
    assert b.total.output == sum(c.response["usage"]["completion_tokens"] for c in answered)
    assert [l.seq for l in b.lines()] == list(range(len(rec.calls)))
    # ... and the session files' own ledger (miniagent.session.usage_ledger), every branch of every file;
    # a child entry's usage is left out (the child's own file is among the files)
    ledger = {"calls": 0, "prompt_tokens": 0, "cached_tokens": 0, "completion_tokens": 0}
    for session in rec.files.values():
        for k, v in usage_ledger([e for e in session.entries if e["type"] != "child"]).items():
            ledger[k] += v
    assert (b.total.calls, b.total.prompt, b.total.cache_read, b.total.output) == (
        ledger["calls"], ledger["prompt_tokens"], ledger["cached_tokens"], ledger["completion_tokens"])
    # llama.cpp's timings say the same split: cache_n read, prompt_n computed
    for l, c in zip(b.lines(), rec.calls):
        if c.timings:
            assert l.usage.cache_read == c.timings["cache_n"] and l.usage.input == c.timings["prompt_n"]
    # per session adds up to the total
    assert sum((u for u in b.by_session().values()), Usage()) == b.total
    text = billing.render(b)
    assert f"prompt_tokens {b.total.prompt:,}" in text


def test_the_command_prints_a_priced_bill_with_the_tables_date(capsys):
    path = RECORDINGS / "a5-4-summary-call-smollm2-llamacpp"
    assert cli(["bill", str(path), "--model", "claude-sonnet-5-5", "--no-requests"]) == 0
    out = capsys.readouterr().out
    assert "rule anthropic" in out and "taken 2026-" in out and "Anthropic style: input_tokens" in out
    assert cli(["bill", str(path / "same-prefix.jsonl"), "--model", "gpt-5-5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["priced"][0]["rule"] == "recorded" and doc["priced"][0]["usd"] > 0
    assert doc["total"]["openai"]["prompt_tokens"] == doc["total"]["anthropic"]["input_tokens"] + \
        doc["total"]["anthropic"]["cache_read_input_tokens"]


# -- conventions -------------------------------------------------------------------------------------

def test_both_conventions_normalize_to_one_usage():
    openai = normalize({"prompt_tokens": 1000, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 900}})
    responses = normalize({"input_tokens": 1000, "output_tokens": 7, "input_tokens_details": {"cached_tokens": 900}})
    anthropic = normalize({"input_tokens": 100, "cache_read_input_tokens": 900, "output_tokens": 7})
    assert openai == responses == anthropic == Usage(100, 900, 0, 7, 1, 0)
    assert openai.openai()["prompt_tokens"] == 1000 and openai.anthropic()["input_tokens"] == 100
    assert openai.naive_input() == 1900  # prompt_tokens + cache reads: the reads counted twice
    writes = normalize({"input_tokens": 10, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 500})
    assert writes.prompt == 510 and writes.openai()["prompt_tokens"] == 510


def test_an_unreported_cache_count_is_not_a_silent_zero():
    u = normalize({"prompt_tokens": 50, "completion_tokens": 1})
    assert u.unreported == 1 and u.input == 50


@pytest.mark.parametrize("usage, message", [
    ({}, "neither prompt_tokens"),
    ({"prompt_tokens": -3}, "whole number >= 0"),
    ({"prompt_tokens": "12"}, "whole number >= 0"),
    ({"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 9}}, "more than the 5"),
    ({"prompt_tokens": 5, "prompt_tokens_details": 3}, "should be an object"),
    ([], "should be an object"),
])
def test_bad_usage_is_a_clear_error(usage, message):
    with pytest.raises(BillError, match=message):
        normalize(usage, "x.jsonl:3")


# -- child sessions: synthetic files in the contract's shape -------------------------------------------

def call(id_, parent, prompt, cached, output=1, type_="model_call", ms=10.0):
    return {"id": id_, "parentId": parent, "type": type_, "round": 1, "request": {"messages": []},
            "response": {"usage": {"prompt_tokens": prompt, "completion_tokens": output,
                                   "prompt_tokens_details": {"cached_tokens": cached}},
                         "timings": {"cache_n": cached, "prompt_n": prompt - cached, "prompt_ms": ms, "predicted_ms": 1.0}}}


def write(path: Path, entries: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def family(tmp_path: Path, declared: dict | None = None) -> Path:
    """parent -> child c1 (fresh) -> grandchild g1 (fork); the parent also has a compaction summary call
    and a branch left behind."""
    parent = tmp_path / "main.jsonl"
    write(tmp_path / "main.children" / "c1.children" / "g1.jsonl", [
        {"id": "g0", "parentId": None, "type": "system", "content": "s",
         "parentSession": {"path": "c1.jsonl", "entryId": "k1"}},
        call("g2", "g0", 300, 250)])
    write(tmp_path / "main.children" / "c1.jsonl", [
        {"id": "c0", "parentId": None, "type": "system", "content": "s",
         "parentSession": {"path": "main.jsonl", "entryId": "p5"}},
        call("c2", "c0", 200, 0),
        {"id": "k1", "parentId": "c2", "type": "child", "toolCallId": "t9", "path": "c1.children/g1.jsonl",
         "mode": "fork", "status": "done", "usage": {"prompt_tokens": 300, "completion_tokens": 1, "cached_tokens": 250, "calls": 1}},
        call("c3", "k1", 260, 200)])
    child_usage = declared or {"prompt_tokens": 760, "completion_tokens": 3, "cached_tokens": 450, "calls": 3}
    return write(parent, [
        {"id": "p0", "parentId": None, "type": "system", "content": "s"},
        call("p1", "p0", 100, 0),
        call("p2", "p1", 150, 100),           # a branch left behind: p3 forks from p1
        call("p3", "p1", 160, 100),
        {"id": "p4", "parentId": "p3", "type": "compaction", "message": {"role": "user", "content": "sum"},
         "firstKeptId": "p3", "request": {"messages": []},
         "response": call("x", None, 170, 160, output=20)["response"]},
        {"id": "p5", "parentId": "p4", "type": "child", "toolCallId": "t1", "path": "main.children/c1.jsonl",
         "mode": "fresh", "status": "done", "usage": child_usage},
        call("p6", "p5", 120, 60)])


def test_a_session_file_is_billed_with_every_branch_and_every_child(tmp_path):
    b = billing.bill(family(tmp_path))
    root = b.roots[0]
    assert root.own == Usage(100 + 50 + 60 + 10 + 60, 0 + 100 + 100 + 160 + 60, 0, 1 + 1 + 1 + 20 + 1, 5, 0)
    (c1,) = root.children
    assert c1.mode == "fresh" and c1.bill.own.prompt == 460 and c1.bill.total.prompt == 760
    assert c1.bill.children[0].mode == "fork" and c1.bill.children[0].bill.total.prompt == 300
    assert b.total.prompt == 100 + 150 + 160 + 170 + 120 + 760 and b.total.calls == 8
    assert b.notes() == []  # the child entries' usage agrees with their files
    assert b.seconds() == (0.08, 0.008)
    text = billing.render(b)
    assert "c1.jsonl [fresh, done]" in text and "g1.jsonl [fork, done]" in text


def test_a_child_entrys_usage_is_a_check_never_added(tmp_path):
    b = billing.bill(family(tmp_path, declared={"prompt_tokens": 1, "completion_tokens": 3, "cached_tokens": 450,
                                                "calls": 3}))
    assert b.total.prompt == 1460  # the file counts, not the field
    assert any("disagrees" in n and "prompt_tokens 1 (file: 760)" in n for n in b.notes())


def test_an_orphan_child_file_is_billed_with_a_note(tmp_path):
    parent = family(tmp_path)
    write(tmp_path / "main.children" / "lost.jsonl", [{"id": "o0", "parentId": None, "type": "system", "content": "s"},
                                                        call("o1", "o0", 40, 0)])
    b = billing.bill(parent)
    assert b.total.prompt == 1500 and any("lost.jsonl" in n and "no child entry" in n for n in b.notes())


def test_a_missing_child_file_is_a_clear_error(tmp_path):
    parent = family(tmp_path)
    shutil.rmtree(tmp_path / "main.children")
    with pytest.raises(BillError, match=r"main.jsonl:6: child entry 'p5' names main.children/c1.jsonl, but .* does not exist"):
        billing.bill(parent)


def test_a_child_that_names_its_ancestor_is_refused(tmp_path):
    parent = tmp_path / "a.jsonl"
    write(parent, [{"id": "a0", "parentId": None, "type": "system", "content": "s"},
                   {"id": "a1", "parentId": "a0", "type": "child", "path": "a.jsonl", "mode": "fresh", "status": "done"}])
    with pytest.raises(BillError, match="ancestors"):
        billing.bill(parent)


def test_corrupt_and_missing_files_are_clear_errors(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "parentId": null, "type": "system", "content": "s"}\nnot json\n{"id": "b", "parentId": "a", "type": "x"}\n')
    with pytest.raises(BillError, match=r"bad.jsonl:2: not a valid session entry"):
        billing.bill(bad)
    no_usage = write(tmp_path / "nousage.jsonl", [{"id": "a", "parentId": None, "type": "model_call", "request": {},
                                                   "response": {"choices": []}}])
    with pytest.raises(BillError, match=r"nousage.jsonl:1: field response.usage is missing"):
        billing.bill(no_usage)
    assert cli(["bill", str(tmp_path / "nothing.jsonl")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli(["bill", str(empty)]) == 2
    assert "empty session file" in capsys.readouterr().err
    assert cli(["bill", str(tmp_path)]) == 2  # a directory that is not a recording
    assert "not a recording" in capsys.readouterr().err


def test_a_torn_last_line_bills_the_complete_entries_and_says_so(tmp_path):
    path = write(tmp_path / "s.jsonl", [{"id": "a", "parentId": None, "type": "system", "content": "s"},
                                        call("b", "a", 90, 0)])
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"id": "c", "parentId": "b", "type": "model_ca')
    b = billing.bill(path)
    assert b.total.prompt == 90 and "dropped an incomplete last line" in b.notes()[0]


def test_unknown_models_and_rules_on_a_session_file_are_clear_errors(tmp_path, capsys):
    path = family(tmp_path)
    assert cli(["bill", str(path), "--model", "gpt-0"]) == 2
    assert "model 'gpt-0'; known models" in capsys.readouterr().err
    assert cli(["bill", str(path), "--model", "claude-sonnet-5-5", "--rule", "anthropic"]) == 2
    assert "session file alone cannot be replayed" in capsys.readouterr().err
    rec = RECORDINGS / "a5-4-summary-call-smollm2-llamacpp"
    assert cli(["bill", str(rec), "--model", "claude-sonnet-5-5", "--rule", "openai"]) == 2
    assert "cached by the 'anthropic' rule" in capsys.readouterr().err


def test_recorded_prices_use_the_tables_terms(tmp_path):
    b = billing.bill(family(tmp_path))
    cost = billing.price(b, "claude-sonnet-5-5")
    assert cost.term("uncached").tokens == b.total.input and cost.term("read").tokens == b.total.cache_read
    assert cost.term("output").tokens == b.total.output
    assert "recorded" in cost.notes[0]


# -- the ledger next to a tally of the context now ---------------------------------------------------------

@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_the_parts_of_the_ledger_add_up_to_the_files_bill(path):
    rec = load(path)
    for info in rec.manifest["sessions"]:
        parts = billing.context_vs_ledger(path / info["file"], info["leaf"])
        assert sum(parts.values(), Usage()) == billing.bill_session(path / info["file"]).total, info["id"]


def test_a_tally_of_the_context_misses_compactions_summaries_and_branches():
    a54 = RECORDINGS / "a5-4-summary-call-smollm2-llamacpp"
    parts = billing.context_vs_ledger(a54 / "same-prefix.jsonl")
    assert parts["compacted"].calls > 0 and parts["summary"].calls == 2 and parts["branch"].calls == 0
    forks = load(RECORDINGS / "t13-forks-smollm2-llamacpp")
    day1 = forks.session_info("day1")
    parts = billing.context_vs_ledger(forks.path / day1["file"], day1["leaf"])
    assert parts["branch"].calls == 2 * 9 and parts["compacted"].calls == 0
    with pytest.raises(BillError, match="no entry 'nope'"):
        billing.context_vs_ledger(a54 / "same-prefix.jsonl", "nope")


def test_children_are_a_part_a_tally_of_the_context_never_sees(tmp_path):
    parent = tmp_path / "p.jsonl"
    write(tmp_path / "p.children" / "k.jsonl", [{"id": "k0", "parentId": None, "type": "system", "content": "s"},
                                                 call("k1", "k0", 70, 0)])
    write(parent, [{"id": "a", "parentId": None, "type": "system", "content": "s"},
                   {"id": "b", "parentId": "a", "type": "message", "message": {"role": "user", "content": "go"}},
                   call("c", "b", 50, 0),
                   {"id": "d", "parentId": "c", "type": "message", "message": {"role": "assistant", "content": "x"}},
                   {"id": "e", "parentId": "d", "type": "child", "path": "p.children/k.jsonl", "mode": "fresh",
                    "status": "done", "toolCallId": "t"}])
    parts = billing.context_vs_ledger(parent)
    assert parts["context"].prompt == 50 and parts["child"].prompt == 70


def test_several_models_are_priced_side_by_side(capsys):
    path = RECORDINGS / "a5-4-summary-call-smollm2-llamacpp" / "same-prefix.jsonl"
    assert cli(["bill", str(path), "--no-requests", "--model", "claude-sonnet-5-5", "--model", "gpt-5-5"]) == 0
    out = capsys.readouterr().out
    assert "priced: claude-sonnet-5-5" in out and "priced: gpt-5-5" in out


def test_a_budget_stop_is_on_the_bill_and_agrees_with_it(capsys):
    rec = RECORDINGS / "a1-loop-smollm2-llamacpp"
    path = rec / "runaway-budget.jsonl"
    (root,) = billing.bill(path).roots
    (stop,) = root.stops
    assert "budget" in stop["reason"]
    assert stop["tokens"] == root.total.prompt + root.total.output  # the limit counted what the bill counts
    assert cli(["bill", str(rec), "--no-requests"]) == 0
    out = capsys.readouterr().out
    assert "stopped by a limit" in out and "runaway-budget.jsonl" in out
