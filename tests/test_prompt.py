from miniagent.prompt import BASE_PROMPT, EMPTY_MEMORY, MEMORY_HEADER, SystemPrompt, read_agents_md


def test_three_blocks_in_fixed_order_and_join_to_the_text():
    prompt = SystemPrompt("base text", "Use tabs.", "- tests: make check")
    names = [name for name, _ in prompt.blocks()]
    assert names == ["base", "agents_md", "memory_header", "memory_body"]
    assert "".join(text for _, text in prompt.blocks()) == prompt.text
    assert prompt.text.index("base text") < prompt.text.index("Use tabs.") < prompt.text.index(MEMORY_HEADER)
    assert prompt.text.endswith("- tests: make check")


def test_empty_memory_keeps_the_header_so_the_layout_never_moves():
    text = SystemPrompt(BASE_PROMPT, "", "").text
    assert MEMORY_HEADER in text and text.endswith(EMPTY_MEMORY)


def test_agents_md_is_read_from_the_workspace(tmp_path):
    assert read_agents_md(tmp_path) == ""
    (tmp_path / "AGENTS.md").write_text("Answer in JSON.\n")
    assert read_agents_md(tmp_path) == "Answer in JSON."


def test_without_memory_the_prompt_is_base_and_agents_md_only():
    # Mode after-tools carries the memory in the first user message instead.
    prompt = SystemPrompt("base text", "Use tabs.", None)
    assert [name for name, _ in prompt.blocks()] == ["base", "agents_md"]
    assert MEMORY_HEADER not in prompt.text and prompt.text == SystemPrompt("base text", "Use tabs.", "").text.split(
        f"\n\n{MEMORY_HEADER}")[0]
