"""A2's recorders, offline: a fake server stands in for llama-server (not a result).

The fake counts each request's tokens as the server does (the course template and tokenizer). What
must hold whatever the server answers: the retry session sends the malformed reply back once with the
correction, and goes on as the clean session does; the tool-set sessions offer their set and run the
same steps with miniagent's tools.
"""
from __future__ import annotations

from fake_server import FakeChatServer, completion

from chapters.a2.experiments.retry import RetryRecorder, run_with_retry, tried_to_call
from chapters.a2.experiments.tool_sets import SetToolbox, ToolSetRecorder
from miniagent.tools import Workspace
from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids
from prefixlab.paths import CHAT_TEMPLATE, TOY_REPO
from prefixlab.paths import TOKENIZER as TOKENIZER_PATH
from prefixlab.recording.format import load
from prefixlab.recording.recorder import base_provenance

TOKENIZER, TEMPLATE = load_tokenizer(), load_template()
PROVENANCE = base_provenance(CHAT_TEMPLATE, TOKENIZER_PATH) | {"server": {"kind": "external", "flags": []},
                                                               "model": {"name": "fake"}}


def counting_server():
    def reply(body):
        n = len(prompt_token_ids(TEMPLATE, TOKENIZER, body["messages"], body.get("tools")))
        return 200, completion({"role": "assistant", "content": "x"}, n, 0)
    return FakeChatServer(reply)


def record(recorder_class, tmp_path):
    out = tmp_path / "rec"
    with counting_server() as server:
        recorder_class(out, lambda: server.url, lambda epoch: epoch + 1, PROVENANCE, "local",
                       log=lambda line: None).record()
    return load(out)


def test_what_counts_as_a_try():
    assert tried_to_call('<tool_call>\n{"name": "x", "arguments": {}\n</tool_call>')
    assert tried_to_call('{"name": "read_file", "arguments": {"path": "a"')
    assert not tried_to_call("All five checks pass now.")
    assert not tried_to_call("")


def test_the_retry_session_sends_the_bad_reply_back_once(tmp_path):
    rec = record(RetryRecorder, tmp_path)
    clean, retry = rec.session_calls("clean"), rec.session_calls("text-retry")
    assert len(retry) == len(clean) + 1
    second = retry[1].request["messages"]
    assert second[-2]["role"] == "assistant" and "<tool_call>" in second[-2]["content"]
    assert second[-1]["role"] == "user" and second[-1]["content"].startswith("Your last reply tried to call a tool")
    # after the retry it goes on as the clean session: the same last message
    assert retry[-1].request["messages"][-1]["content"] == clean[-1].request["messages"][-1]["content"]
    assert [s["retries"] for s in rec.manifest["sessions"]] == [0, 1, 0]
    bad = rec.session_calls("bad-args")
    tool_result = bad[2].request["messages"][-1]
    assert tool_result["role"] == "tool" and tool_result["content"] == \
        "error: bad arguments for read_file: missing required argument 'path'"


def test_retries_are_bounded(tmp_path):
    class Always:  # a model that keeps writing a broken call
        def complete(self, messages, tools=None, **params):
            from miniagent.model import ModelReply
            return ModelReply({"role": "assistant", "content": "<tool_call>{"}, {"messages": messages}, {})
    from miniagent.session import Session
    from chapters.a2.experiments.retry import four_tools
    session = Session.open(tmp_path / "s.jsonl")
    answer, retries = run_with_retry("task", "fix it", model=Always(), toolbox=four_tools(Workspace(TOY_REPO)),
                                     session=session, max_rounds=3)
    assert retries == 1 and answer == "<tool_call>{"
    assert [m["role"] for m in session.messages()] == ["user", "assistant", "user", "assistant"]


def test_each_tool_set_session_offers_its_set_and_fixes_the_file(tmp_path):
    rec = record(ToolSetRecorder, tmp_path)
    names = {s: [d["function"]["name"] for d in rec.session_calls(s)[0].request["tools"]] for s in ("bash", "pi", "fifteen")}
    assert names["bash"] == ["bash"] and names["pi"] == ["read", "bash", "edit", "write"] and len(names["fifteen"]) == 15
    for s in names:
        last_result = rec.session_calls(s)[-1].request["messages"][-1]["content"]
        assert "5 of 5 checks pass" in last_result, (s, last_result)


def test_a_set_tool_with_no_handler_says_so(tmp_path):
    box = SetToolbox(Workspace(TOY_REPO), "fifteen")
    assert box.call("web_search", '{"query": "x"}') == "error: web_search is offered but not available in this session"
    assert box.call("nope", "{}").startswith("error: unknown tool 'nope'")


def test_the_mcp_sessions_offer_the_servers_tools_and_the_changed_list_from_the_third_request(tmp_path):
    from chapters.a2.experiments.mcp_servers import MCPRecorder
    rec = record(MCPRecorder, tmp_path)
    names = {s: [[t["function"]["name"] for t in c.request["tools"]] for c in rec.session_calls(s)]
             for s in MCPRecorder.variants}
    own = ["list_files", "read_file", "write_file", "edit_file", "run_command", "remember"]
    assert names["one-server"] == [own + ["run_checks", "list_checks", "search"]] * 6
    assert names["one-server-changed"][:2] == names["one-server"][:2]
    assert names["one-server-changed"][2:] == [own + ["run_checks", "list_checks", "search", "show_check"]] * 4
    assert names["two-servers-changed"][:2] == names["one-server"][:2]
    assert names["two-servers-changed"][2:] == [own + ["run_checks", "list_checks", "show_check", "search"]] * 4
    results = [m["content"] for m in rec.session_calls("one-server")[-1].request["messages"] if m["role"] == "tool"]
    assert results[1].startswith("PASS parse plain") and "3 of 5 checks pass" in results[1]
    assert "5 of 5 checks pass" in results[-1]  # the fix made with miniagent's edit_file, checked by the server
