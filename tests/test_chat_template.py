"""render_chat + the tokenizer give llama-server's prompt text, ids and prompt_tokens."""

import json
import os

import jinja2
import pytest

from prefixlab.cache.template import (ChatRequestError, llama_cpp_tojson, render_chat,
                                     render_template, server_messages, server_tools,
                                     transformers_tojson)
from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids, text_token_ids
from prefixlab.paths import TOKENIZER_CORPUS as CORPUS_DIR
from prefixlab.recording.tokenizer_fixtures import chat_body, load_cases
from prefixlab.serving.client import ServerClient, ServerError

CASES = {c["name"]: c for c in load_cases("chat-cases.json")}
RECORDED = json.loads((CORPUS_DIR / "server-chat.json").read_text(encoding="utf-8"))
OK = [r for r in RECORDED["cases"] if "error" not in r]
REFUSED = [r for r in RECORDED["cases"] if "error" in r]


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer()


@pytest.fixture(scope="module")
def template():
    return load_template()


def render_case(template, case):
    return render_chat(template, case["messages"], case.get("tools"),
                       case.get("add_generation_prompt", True))


# ---- offline: against the recordings --------------------------------------------------------

def test_recording_covers_every_case():
    assert sorted(r["name"] for r in RECORDED["cases"]) == sorted(CASES)
    assert all(CASES[r["name"]].get("expect_error", False) == ("error" in r)
               for r in RECORDED["cases"])


def test_recorded_with_this_template(template):
    import hashlib
    assert RECORDED["server"]["chat_template_sha256"] == hashlib.sha256(template.encode()).hexdigest()


@pytest.mark.parametrize("rec", OK, ids=lambda r: r["name"])
def test_render_equals_server_text(template, rec):
    assert render_case(template, CASES[rec["name"]]) == rec["prompt"]


@pytest.mark.parametrize("rec", OK, ids=lambda r: r["name"])
def test_ids_equal_server_and_prompt_tokens(template, tok, rec):
    case = CASES[rec["name"]]
    ids = prompt_token_ids(template, tok, case["messages"], case.get("tools"),
                           add_generation_prompt=case.get("add_generation_prompt", True))
    assert ids == rec["prompt_ids"]
    assert len(ids) == rec["prompt_tokens"]  # the server's usage.prompt_tokens


@pytest.mark.parametrize("rec", REFUSED, ids=lambda r: r["name"])
def test_refused_requests_raise(template, rec):
    with pytest.raises(ChatRequestError, match="not valid JSON"):
        render_case(template, CASES[rec["name"]])


# ---- how the server converts a request (the findings, as tests) --------------------------------

def test_string_arguments_are_parsed_and_reprinted():
    msgs = [{"role": "user", "content": "x"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"b":1,"a":2}'}}]},
            {"role": "tool", "tool_call_id": "1", "content": "ok"}]
    out = server_messages(msgs)
    assert out[1]["content"] == ""
    assert out[1]["tool_calls"][0]["function"]["arguments"] == {"b": 1, "a": 2}  # order kept


def test_tools_are_rebuilt_with_three_fields():
    tools = [{"function": {"parameters": {"type": "object"}, "name": "f", "strict": True},
              "type": "function"}]
    assert server_tools(tools) == [{"type": "function", "function": {
        "name": "f", "description": "", "parameters": {"type": "object"}}}]
    assert server_tools([]) is None


def test_content_parts_are_joined_by_newlines():
    parts = [{"type": "text", "text": ""}, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert server_messages([{"role": "user", "content": parts}])[0]["content"] == "a\nb"


def test_developer_becomes_system():
    assert server_messages([{"role": "developer", "content": "x"},
                            {"role": "user", "content": "y"}])[0]["role"] == "system"


@pytest.mark.parametrize("value, expected", [
    (1.0, "1"), (30.0, "30"), (1e3, "1000"), (3.14159265358979, "3.14159"), (0.0001, "0.0001"),
    (1e-5, "1e-05"), (123456789.0, "1.23457e+08"), (-2.5, "-2.5"), (12345678901, "12345678901"),
    (True, "true"), (None, "null"), ("中\n\"", '"中\\n\\""'), ("\x01", '"\\u0001"'),
    ({"b": [1, {}], "a": []}, '{"b": [1, {}], "a": []}'),
])
def test_llama_cpp_tojson(value, expected):
    assert llama_cpp_tojson(value) == expected


def test_llama_cpp_tojson_options():
    assert llama_cpp_tojson({"a": [1, 2]}, indent=2) == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    assert llama_cpp_tojson({"a": "é"}, ensure_ascii=True) == '{"a": "\\u00e9"}'
    assert llama_cpp_tojson({"a": 1}, separators=(",", ":")) == '{"a":1}'
    with pytest.raises(jinja2.exceptions.TemplateError):
        llama_cpp_tojson({"a": 1}, sort_keys=True)
    with pytest.raises(ChatRequestError):
        llama_cpp_tojson(2**70)


def test_transformers_tojson_is_json_dumps():
    assert transformers_tojson({"x": 30.0, "y": "中"}) == '{"x": 30.0, "y": "中"}'


def test_json_style_matters_for_floats(template):
    case = CASES["with-tools"]
    ours = render_chat(template, case["messages"], case["tools"])
    theirs = render_chat(template, case["messages"], case["tools"], json_style="transformers")
    assert '"default": 30, ' in ours and '"default": 30.0, ' in theirs


# ---- the transformers-style environment ---------------------------------------------------------

def test_environment_features():
    text = ("{% for x in items %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}\n"
            "  {% if true %}\nyes\n  {% endif %}\n{{ strftime_now('%Y') | length }}")
    assert render_template(text, items=[1, 2, 3, 4]) == "12yes\n4"  # trim + lstrip
    with pytest.raises(ChatRequestError, match="boom"):
        render_template("{{ raise_exception('boom') }}")
    with pytest.raises(ChatRequestError):
        render_template("{{ ''.__class__.__mro__ }}{% set x = [] %}{{ x.append(1) }}")


# ---- bad input gets a clear error -----------------------------------------------------------

@pytest.mark.parametrize("messages, message", [
    ([], "non-empty list"),
    ([{"content": "x"}], "'role'"),
    ([{"role": "user"}], "must contain 'content'"),
    ([{"role": "user", "content": "x"}, {"role": "assistant"}], "needs 'content' or 'tool_calls'"),
    ([{"role": "user", "content": 5}], "content must be"),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}], "not supported"),
    ([{"role": "user", "content": "x"},
      {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f"}}]},
      {"role": "tool", "content": ""}], "'name' and 'arguments'"),
    ([{"role": "user", "content": "x"},
      {"role": "assistant", "tool_calls": [{"type": "web", "function": {}}]},
      {"role": "tool", "content": ""}], "type 'function'"),
    ([{"role": "user", "content": "x"}, {"role": "assistant", "content": "pre"}], "continue it"),
])
def test_bad_messages(template, messages, message):
    original = json.dumps(messages)
    with pytest.raises(ChatRequestError, match=message):
        render_chat(template, messages)
    assert json.dumps(messages) == original  # the request is never modified


@pytest.mark.parametrize("tools, message", [
    ({"type": "function"}, "must be a list"),
    ([{"type": "retrieval"}], "type 'function'"),
    ([{"type": "function", "function": {"description": "x"}}], "'name'"),
])
def test_bad_tools(template, tools, message):
    with pytest.raises(ChatRequestError, match=message):
        render_chat(template, [{"role": "user", "content": "x"}], tools)


# ---- online: against a live llama-server ------------------------------------------------------

live = pytest.mark.skipif(
    os.environ.get("PREFIXLAB_REAL_SERVER") != "1" or not os.environ.get("PREFIXLAB_SERVER_URL"),
    reason="set PREFIXLAB_REAL_SERVER=1 and PREFIXLAB_SERVER_URL=http://127.0.0.1:PORT")


@pytest.mark.server
@live
@pytest.mark.parametrize("name", sorted(CASES))
def test_live_chat_case(template, tok, name):
    client = ServerClient(os.environ["PREFIXLAB_SERVER_URL"])
    case = CASES[name]
    body = chat_body(case)
    if case.get("expect_error"):
        with pytest.raises(ServerError):
            client.apply_template(body)
        return
    text = render_case(template, case)
    assert text == client.apply_template(body)
    ids = text_token_ids(tok, text)
    assert ids == client.tokenize(text)
    assert len(ids) == client.prompt_tokens(body)


# ---- seeded random chat requests (server digests recorded) -------------------------------------

def test_random_chats_equal_server(template, tok):
    from prefixlab.recording.tokenizer_fixtures import ids_digest, random_cases, text_digest
    recorded = json.loads((CORPUS_DIR / "server-random.json").read_text(encoding="utf-8"))
    cases = random_cases(recorded["seed"])["chats"]
    assert [c["name"] for c in cases] == [r["name"] for r in recorded["chats"]]
    bad = []
    for case, rec in zip(cases, recorded["chats"]):
        text = render_chat(template, case["messages"], case.get("tools"))
        ids = text_token_ids(tok, text)
        if (text_digest(text), ids_digest(ids)) != (rec["prompt_sha256"], rec["ids_sha256"]):
            bad.append(case["name"])
    assert bad == []
