"""Where chapter A2's data is: the one module that knows the layout of its part of ``data/``.

The generic paths (recordings, tokenizer, chat template, the toy repository) are in ``prefixlab.paths``.
"""
from __future__ import annotations

from prefixlab.paths import DATA, RECORDINGS

A2_DATA = DATA / "a2"
CALL_SHAPES_DIR = A2_DATA / "call-shapes"                 # A2·1: the live model's replies, one row each
CALL_SHAPES_SUMMARY = A2_DATA / "call-shapes.json"        # A2·1: counted per shape (from the rows)
TOOL_SETS = A2_DATA / "tool-sets.yml"                     # A2·2: bash only, four tools, fifteen tools
LIVE_RECORDING = RECORDINGS / "a1-live-qwen2.5-coder-0.5b-llamacpp"  # its manifest holds the live template
LIVE_TOKENIZER = DATA / "tokenizers" / "qwen2.5-coder-0.5b-instruct.tokenizer.json"
TOOL_BLOCKS = A2_DATA / "tool-blocks.json"                # A2·1, A2·2: tool blocks counted offline (tool_blocks.py)
RETRY_SCRIPT = A2_DATA / "retry" / "script.yml"           # A2·1: the scripted sessions of the retry recording
TOOL_SETS_SCRIPT = A2_DATA / "tool-sets" / "script.yml"   # A2·2: the scripted sessions of the tool-set recording
RETRY_RECORDING = RECORDINGS / "a2-1-retry-smollm2-llamacpp"
FOUR_WAYS_RECORDING = RECORDINGS / "a2-ways-qwen2.5-coder-0.5b-llamacpp"  # A2·5: four ways to get a call, live model
LOOP_RECORDING = RECORDINGS / "a2-loop-qwen2.5-coder-0.5b-llamacpp"  # A2·5: the loop, constrained, with and without the guard
FOUR_WAYS_SUMMARY = A2_DATA / "four-ways.json"          # A2·5: the four ways counted (four_ways.py), for the map
TOOL_SETS_RECORDING = RECORDINGS / "a2-2-tool-sets-smollm2-llamacpp"
MCP_RECORDING = RECORDINGS / "a2-4-mcp-smollm2-llamacpp"      # A2·4: tools from the course MCP server
OUTPUTS_EDITS = A2_DATA / "outputs-edits.json"          # A2·3: big outputs and edits counted offline
