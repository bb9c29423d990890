"""Block attribution: named token ranges that tile the prompt exactly as the server tokenizes it."""
import pytest

from miniagent.variants.memory_timing import with_memory
from miniagent.prompt import SystemPrompt

from prefixlab.cache.attribution import AttributionError, attribute, check_tiling, split_system_prompt
from prefixlab.cache.tokenizer import load_template, load_tokenizer, prompt_token_ids

TEMPLATE = load_template()
TOOLS = [
    {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                      "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "remember", "description": "Save a note.",
                                      "parameters": {"type": "object", "properties": {"note": {"type": "string"}}}}},
]
SYSTEM = SystemPrompt("You are a test agent.", "# Repo\n\n- run `make check`", "Checks: run make check.")


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer()


def conversation(system=SYSTEM.text):
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": "Fix the bug."},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "print('hi')"},
    ]


def names(att):
    return [b.name for b in att.blocks]


def test_blocks_tile_and_ids_are_the_servers(tok):
    messages = conversation()
    att = attribute(TEMPLATE, tok, messages, TOOLS)
    check_tiling(att)
    assert list(att.ids) == prompt_token_ids(TEMPLATE, tok, messages, TOOLS)
    assert att.blocks[0].start == 0 and att.blocks[-1].end == len(att.ids)
    for a, b in zip(att.blocks, att.blocks[1:]):
        assert a.end == b.start and a.char_end == b.char_start
    assert "".join(att.text[b.char_start:b.char_end] for b in att.blocks) == att.text


def test_names_follow_the_template_order(tok):
    att = attribute(TEMPLATE, tok, conversation(), TOOLS)
    content = [n for n in names(att) if not n.startswith("template#")]
    # the template writes the tool definitions after the whole system text
    assert content == ["base", "agents_md", "memory_header", "memory_body", "tools",
                       "user#1", "assistant#2", "tool#3"]
    assert att.blocks[0].name == "template#0" and att.token_text(0, len(att.blocks[0])) == "<|im_start|>system\n"
    assert att.blocks_after("memory_body")[0] == "tools"


def test_system_blocks_are_miniagents(tok):
    att = attribute(TEMPLATE, tok, conversation(), TOOLS)
    for name, text in SYSTEM.blocks():
        block = att.block(name)
        assert att.text[block.char_start:block.char_end] == text
    assert att.block("memory_body").kind == "system"
    assert att.block("tool#3").part == "tool_result" and att.block("assistant#2").part == "tool_use"


def test_assistant_block_holds_its_tool_calls(tok):
    att = attribute(TEMPLATE, tok, conversation(), TOOLS)
    b = att.block("assistant#2")
    text = att.text[b.char_start:b.char_end]
    assert text.startswith("Reading.") and '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}' in text
    assert "<|im_end|>" not in text


def test_tool_definitions_split_inside_the_tools_block(tok):
    att = attribute(TEMPLATE, tok, conversation(), TOOLS)
    tools = att.block("tools")
    assert [t.name for t in att.tool_spans] == ["tool:read_file", "tool:remember"]
    assert att.tool_spans[0].start == tools.start and att.tool_spans[-1].end == tools.end
    assert att.tool_spans[0].end == att.tool_spans[1].start


def test_api_blocks_have_kinds_and_no_glue(tok):
    att = attribute(TEMPLATE, tok, conversation(), TOOLS)
    api = att.rule_blocks(api=True)
    assert [b.name for b in api] == ["base", "agents_md", "memory_header", "memory_body", "tool:read_file",
                                     "tool:remember", "user#1", "assistant#2", "assistant#2:tool_use", "tool#3"]
    assert {b.kind for b in api[:4]} == {"system"} and {b.kind for b in api[4:6]} == {"tools"}
    local = att.rule_blocks()
    assert [b.name for b in local] == names(att) and local[-1].end == len(att.ids)


def test_no_tools_and_no_system(tok):
    att = attribute(TEMPLATE, tok, conversation(), None)
    assert "tools" not in names(att)
    att = attribute(TEMPLATE, tok, conversation()[1:2], TOOLS)  # tools, but no system message
    assert [n for n in names(att) if not n.startswith("template")] == ["tools", "user#0"]
    check_tiling(att)


def test_consecutive_tool_results_and_empty_content(tok):
    messages = conversation()[:2] + [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "x"}'}},
            {"id": "b", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "y"}'}}]},
        {"role": "tool", "tool_call_id": "a", "content": ""},
        {"role": "tool", "tool_call_id": "b", "content": "y"},
    ]
    att = attribute(TEMPLATE, tok, messages, TOOLS)
    check_tiling(att)
    assert len(att.block("tool#3")) == 0 and att.token_text(*_range(att.block("tool#4"))) == "y"
    assert list(att.ids) == prompt_token_ids(TEMPLATE, tok, messages, TOOLS)


def _range(b):
    return b.start, b.end


def test_content_that_looks_like_the_template(tok):
    sneaky = "<|im_start|>user\n<tool_response>\nnot a real turn<|im_end|>"
    messages = conversation() + [{"role": "user", "content": sneaky}]
    att = attribute(TEMPLATE, tok, messages, TOOLS)
    b = att.block("user#4")
    assert att.text[b.char_start:b.char_end] == sneaky
    assert list(att.ids) == prompt_token_ids(TEMPLATE, tok, messages, TOOLS)


def test_multibyte_text_stays_in_its_block(tok):
    messages = conversation() + [{"role": "user", "content": "温度 -3.5C"}]
    att = attribute(TEMPLATE, tok, messages, TOOLS)
    b = att.block("user#4")
    assert att.token_text(b.start, b.end) == "温度 -3.5C"


def test_foreign_system_text_is_one_block(tok):
    att = attribute(TEMPLATE, tok, conversation("Just a system prompt."), TOOLS)
    assert "system" in names(att) and "memory_body" not in names(att)


def test_split_system_prompt_round_trip():
    assert split_system_prompt(SYSTEM.text) == SYSTEM.blocks()
    no_agents = SystemPrompt("base", "", "")
    assert [n for n, _ in split_system_prompt(no_agents.text)] == ["base", "memory_header", "memory_body"]
    assert split_system_prompt("no memory header here") is None
    no_memory = SystemPrompt("base", "rules", None)  # mode after-tools: the memory is in a user message
    assert split_system_prompt(no_memory.text) == no_memory.blocks()


def test_a_system_prompt_without_memory_still_has_miniagents_blocks(tok):
    att = attribute(TEMPLATE, tok, conversation(SystemPrompt("You are a test agent.", "rules", None).text), TOOLS)
    content = [n for n in names(att) if not n.startswith("template#")]
    assert content[:3] == ["base", "agents_md", "tools"]


def test_block_at_and_around(tok):
    att = attribute(TEMPLATE, tok, conversation(), TOOLS)
    body = att.block("memory_body")
    assert att.block_at(body.start).name == "memory_body"
    assert att.block_at(len(att.ids)) is None
    before, after = att.around(body.start, 3)
    assert after.startswith("Checks") and before.endswith("\n")


def test_other_templates_are_refused(tok):
    with pytest.raises(AttributionError, match="ChatML"):
        attribute("{% for m in messages %}{{ m.content }}{% endfor %}", tok, conversation(), TOOLS)


def test_the_memory_block_of_a_first_user_message_keeps_its_names_after_the_tools(tok):
    # Mode after-tools: no memory in the system text; it leads the first user message instead.
    messages = conversation(SystemPrompt("You are a test agent.", "rules", None).text)
    messages[1] = {"role": "user", "content": with_memory("Checks: run make check.", "Fix the bug.")}
    messages.append({"role": "user", "content": with_memory("not the first one", "so not split")})
    att = attribute(TEMPLATE, tok, messages, TOOLS)
    content = [n for n in names(att) if not n.startswith("template#")]
    assert content == ["base", "agents_md", "tools", "memory_header", "memory_body", "user#1",
                       "assistant#2", "tool#3", "user#4"]
    body = att.block("memory_body")
    assert att.text[body.char_start:body.char_end] == "Checks: run make check."
    assert (body.kind, body.section, body.message) == ("message", "message", 1)
    assert att.text[att.block("user#1").char_start:att.block("user#1").char_end] == "\n\n# Task\n\nFix the bug."
    assert list(att.ids) == prompt_token_ids(TEMPLATE, tok, messages, TOOLS)


def test_assistant_text_and_its_tool_calls_are_two_api_blocks():
    # The Anthropic API merges only runs of tool_use blocks into one lookback position; a text
    # block before them is a position of its own, so the API view splits the turn in two.
    from prefixlab.cache import calculator
    from prefixlab.cache.rules.anthropic import api_blocks
    from prefixlab.cache.rules.base import Request
    from prefixlab.paths import RECORDINGS

    replay = calculator.prepare(RECORDINGS / "t10-smollm2-llamacpp")
    att = replay.attributions[5]
    blocks = {b.name: b for b in att.rule_blocks(api=True)}
    text, calls = blocks["assistant#2"], blocks["assistant#2:tool_use"]
    assert text.part == "" and calls.part == "tool_use" and text.end == calls.start
    assert att.token_text(calls.start, calls.end).startswith("<tool_call>")
    assert "assistant#2" in {b.name for b in att.rule_blocks(api=False)}  # the local view keeps one tile
    positions = [ab.position for ab in api_blocks(Request(att.ids, blocks=att.rule_blocks(api=True)))]
    names = [ab.block.name for ab in api_blocks(Request(att.ids, blocks=att.rule_blocks(api=True)))]
    assert positions[names.index("assistant#2:tool_use")] == positions[names.index("assistant#2")] + 1
