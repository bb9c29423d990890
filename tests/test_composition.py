"""A request's tokens by part (base, AGENTS.md, memory, tools, history, summary, template), and
where a text sits in it."""
import pytest

from miniagent.compaction import SUMMARY_HEADER
from miniagent.prompt import SystemPrompt

from prefixlab.cache import composition
from prefixlab.cache.attribution import attribute
from prefixlab.cache.tokenizer import load_template, load_tokenizer

RULE = "Never edit `tools/check.py`."
TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                           "parameters": {"type": "object",
                                                          "properties": {"path": {"type": "string"}}}}}]


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer()


def request(agents_md="# Repo\n\n- " + RULE, first="Fix the bug."):
    system = SystemPrompt("You are a test agent.", agents_md, "Checks: run make check.").text
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": first},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "print('hi')"},
    ]


def test_parts_add_up_to_the_prompt_and_keep_their_order(tok):
    messages = request()
    att = attribute(load_template(), tok, messages, TOOLS)
    parts = composition.tokens_by_part(att, messages)
    assert list(parts) == list(composition.PARTS)
    assert sum(parts.values()) == len(att)
    assert all(parts[p] > 0 for p in ("base", "agents_md", "memory", "tools", "history", "template"))
    assert parts["summary"] == 0


def test_a_compaction_summary_is_its_own_part(tok):
    messages = request(first=f"{SUMMARY_HEADER}\n\nWe read a.py.")
    att = attribute(load_template(), tok, messages, TOOLS)
    parts = composition.tokens_by_part(att, messages)
    assert parts["summary"] == len(att.block("user#1"))
    without_tools = composition.tokens_by_part(attribute(load_template(), tok, messages, None), messages)
    assert without_tools["tools"] == 0


def test_find_names_the_block_and_the_tokens_of_a_text(tok):
    in_agents = request()
    att = attribute(load_template(), tok, in_agents, TOOLS)
    [hit] = composition.find(att, RULE, in_agents)
    assert (hit.block, hit.part) == ("agents_md", "agents_md")
    assert RULE in att.token_text(hit.start, hit.end) and hit.tokens >= 5

    in_message = request(agents_md="# Repo", first="Fix the bug.\n\n" + RULE)
    att = attribute(load_template(), tok, in_message, TOOLS)
    [hit] = composition.find(att, RULE, in_message)
    assert (hit.block, hit.part) == ("user#1", "history")
    assert composition.find(att, "no such text") == []
    with pytest.raises(ValueError):
        composition.find(att, "")
