"""Which named block every prompt token belongs to.

    att = attribute(template_text, tokenizer, messages, tools)
    att.blocks          # BlockSpan tiles: template#0, base, agents_md, memory_header, memory_body,
                        #   tools, template#1, user#1, template#2, assistant#2, ...
    att.block_at(168)   # the block holding token 168
    att.around(168)     # (text of the 4 tokens before, text of the 4 tokens from 168 on)

How: render the request exactly as llama-server does (``prefixlab.cache.template.render_chat``),
cut the *characters* of that text into blocks, tokenize with offsets
(``prefixlab.cache.tokenizer.text_token_spans``, the same ids ``verify`` proves against the server)
and give each token to the block that holds its first character. So the blocks tile the whole
token sequence: no gaps, no overlaps, even when one token straddles a boundary.

The character cut follows the ChatML layout of the recorded template
(``data/templates/qwen3-chat-template.jinja``):

- ``<|im_start|>system\\n`` + system text, split into miniagent's ``SystemPrompt`` blocks
  (base, skills, agents_md, memory_header, memory_body -- skills only with a skills folder, after
  agents_md when its index sits in the volatile band; the memory blocks absent when the memory is
  in the first user message; one ``system`` block if it does not parse);
- ``tools``: what the template writes for the tool definitions, *after* the system text
  (``\\n\\n# Tools ... </tool_call>``);
- one block per message with the message's own text: ``user#i``, ``tool#i`` (the tool result),
  ``system#i``; a user message that carries miniagent's memory block (mode after-tools puts it
  at the start of the first user message, *after* the tools) is cut into ``memory_header``,
  ``memory_body`` and ``user#i`` (the rest: ``\\n\\n# Task\\n\\n`` and the task), so the memory
  blocks have the same names wherever the request carries them; a user message that *ends* with
  notes recalled for it (mode retrieve, ``miniagent.variants.retrieve_memory``) is cut into ``user#i``
  (the user's text), ``memory_header`` and ``memory_body``; ``assistant#i`` also holds the
  tool calls as the template prints them (``<tool_call>`` tags included), up to its end-of-turn token;
- everything else is template glue (``<|im_end|>\\n<|im_start|>user\\n``, ``<tool_response>``
  tags, the final ``<|im_start|>assistant\\n``), named ``template#n`` in order.

A template whose text does not have that layout raises AttributionError: nothing is guessed.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from miniagent.prompt import AGENTS_HEADER, MEMORY_HEADER, SystemPrompt
from miniagent.skills import INDEX_INTRO, SKILLS_HEADER
from miniagent.variants.inline_skills import INLINE_INTRO
from miniagent.variants.memory_timing import TASK_HEADER
from miniagent.variants.retrieve_memory import RECALL_MARK, split_recalled

from .rules.base import Block
from .template import llama_cpp_tojson, render_chat, server_messages, server_tools
from .tokenizer import text_token_spans

BOS, EOS = "<|im_start|>", "<|im_end|>"  # what the server passes as bos_token / eos_token (render_chat defaults)
SYSTEM_BLOCKS = ("base", "skills", "agents_md", "memory_header", "memory_body")
SKILLS_MARKS = tuple(f"\n\n{SKILLS_HEADER}\n\n{intro}" for intro in (INDEX_INTRO, INLINE_INTRO))
TOOL_CALL_OPEN = "<tool_call>"  # how the Qwen3 template starts each printed tool call


class AttributionError(ValueError):
    """The rendered prompt does not have the layout we can name; the message says where."""


@dataclass(frozen=True)
class BlockSpan:
    """A named part of one rendered prompt.

    kind     "system" (a SystemPrompt block or the whole system text), "tools", "message" or "template"
    section  the API level the part sits in: "tools", "system" or "message" (glue too)
    chars    character range in the rendered text; start/end: token range
    message  index of the request message it comes from (None for tools and glue)
    part     "tool_use" (assistant with tool calls) / "tool_result" (tool message) / ""
    """

    name: str
    kind: str
    section: str
    char_start: int
    char_end: int
    start: int
    end: int
    message: int | None = None
    part: str = ""

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Attribution:
    text: str                            # the rendered prompt
    ids: tuple[int, ...]                 # its token ids (== prompt_token_ids of the request)
    offsets: tuple[tuple[int, int], ...]  # character span of each token in text
    blocks: tuple[BlockSpan, ...]        # tiles [0, len(ids)) in order
    tool_spans: tuple[BlockSpan, ...] = ()  # one per tool definition, inside the "tools" block

    def __len__(self) -> int:
        return len(self.ids)

    def block(self, name: str) -> BlockSpan:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(f"no block {name!r}; blocks: {', '.join(b.name for b in self.blocks)}")

    def block_at(self, index: int) -> BlockSpan | None:
        """The block holding token ``index`` (None past the end)."""
        ends = [b.end for b in self.blocks]
        i = bisect.bisect_right(ends, index)
        while i < len(self.blocks) and self.blocks[i].start == self.blocks[i].end:
            i += 1  # skip empty blocks
        return self.blocks[i] if i < len(self.blocks) and self.blocks[i].start <= index < self.blocks[i].end else None

    def token_text(self, start: int, end: int) -> str:
        """The text tokens [start, end) cover."""
        start, end = max(0, start), min(len(self.ids), end)
        if start >= end:
            return ""
        return self.text[self.offsets[start][0]:self.offsets[end - 1][1]]

    def around(self, index: int, n: int = 4) -> tuple[str, str]:
        """Text of the ``n`` tokens before ``index`` and of the ``n`` tokens from ``index`` on."""
        return self.token_text(index - n, index), self.token_text(index, index + n)

    def blocks_after(self, name: str, include_template: bool = False) -> list[str]:
        """Names of the blocks that follow block ``name``, in prompt order."""
        names = [b.name for b in self.blocks if include_template or b.kind != "template"]
        all_names = [b.name for b in self.blocks]
        i = all_names.index(name)
        later = {b.name for b in self.blocks[i + 1:]}
        return [n for n in names if n in later]

    def rule_blocks(self, api: bool = False) -> tuple[Block, ...]:
        """``prefixlab.cache.rules.Block`` s for a cache rule.

        api=False: every tile, glue included, each with its section as kind (for local servers,
        whose answer is only the break block's name).
        api=True: the blocks an API request has -- one per tool definition (kind tools), the system
        blocks (kind system) and one per message (kind message, with tool_use / tool_result parts);
        no glue, so the API rules count the template's tokens with the next block.
        """
        if not api:
            return tuple(Block(b.name, b.section, b.start, b.end, b.part) for b in self.blocks)
        out = []
        for b in self.blocks:
            if b.kind == "template":
                continue
            if b.kind == "tools" and self.tool_spans:
                out.extend(Block(t.name, "tools", t.start, t.end) for t in self.tool_spans)
            elif b.part == "tool_use":
                out.extend(self._text_and_tool_use(b))
            else:
                out.append(Block(b.name, b.section, b.start, b.end, b.part))
        return tuple(out)

    def _text_and_tool_use(self, b: BlockSpan) -> list[Block]:
        """An assistant turn with text before its tool calls is two API content blocks, a text block
        and the tool_use run; only the run merges into one lookback position on the Anthropic API."""
        call = self.text.find(TOOL_CALL_OPEN, b.char_start, b.char_end)
        if call < 0 or not self.text[b.char_start:call].strip():
            return [Block(b.name, b.section, b.start, b.end, b.part)]
        split = bisect.bisect_left([start for start, _ in self.offsets], call, b.start, b.end)
        return [Block(b.name, b.section, b.start, split),
                Block(f"{b.name}:tool_use", b.section, split, b.end, b.part)]


def split_system_prompt(text: str) -> list[tuple[str, str]] | None:
    """miniagent's SystemPrompt blocks of ``text``, or None if it was not built by SystemPrompt.

    A prompt without the memory header (mode after-tools keeps the memory in the first user
    message) is recognised by its AGENTS.md header; with neither header it is None.
    """
    agents_mark, memory_mark = f"\n\n{AGENTS_HEADER}\n\n", f"\n\n{MEMORY_HEADER}\n\n"
    m = text.find(memory_mark)
    a = text.find(agents_mark)
    if m < 0:
        if a < 0:
            return None
        base, agents, memory = text[:a], text[a + len(agents_mark):], None
    elif 0 <= a < m:
        base, agents, memory = text[:a], text[a + len(agents_mark):m], text[m + len(memory_mark):]
    else:
        base, agents, memory = text[:m], "", text[m + len(memory_mark):]
    base, agents, skills, at = split_skills(base, agents)
    rebuilt = SystemPrompt(base, agents, memory, skills, at).blocks()
    return rebuilt if "".join(t for _, t in rebuilt) == text else None


def split_skills(base: str, agents: str) -> tuple[str, str, str, str]:
    """(base, agents, skills block, where it sits): the skills block (miniagent.skills) ends the
    base text when it sits in the stable band, and ends the AGENTS.md text in the volatile one."""
    for mark in SKILLS_MARKS:
        if (i := base.find(mark)) >= 0:
            return base[:i], agents, base[i + 2:], "stable"
        if (i := agents.rfind(mark)) >= 0:
            return base, agents[:i], agents[i + 2:], "volatile"
    return base, agents, "", "stable"


def split_memory_message(text: str) -> list[tuple[str | None, str]] | None:
    """A user message that carries miniagent's memory block as named pieces, None for any other
    message. Mode after-tools: ``[("memory_header", ...), ("memory_body", ...), (None, "\\n\\n# Task
    \\n\\n" + the task)]``; mode retrieve: ``[(None, the user's text), ("memory_header", ...),
    ("memory_body", the notes)]``. The piece named None keeps the message's own block name."""
    if (recalled := split_recalled(text)) is not None:
        return [(None, recalled[0]), ("memory_header", RECALL_MARK), ("memory_body", recalled[1])]
    head, mark = f"{MEMORY_HEADER}\n\n", f"\n\n{TASK_HEADER}\n\n"
    if not text.startswith(head) or mark not in text[len(head):]:
        return None
    body_end = text.index(mark, len(head))
    return [("memory_header", head), ("memory_body", text[len(head):body_end]), (None, text[body_end:])]


class _Cutter:
    """Walks the rendered text left to right, cutting it into named character ranges."""

    def __init__(self, text: str):
        self.text, self.pos, self.parts, self.n_glue = text, 0, [], 0

    def glue_until(self, end: int, section: str) -> None:
        if end > self.pos:
            self.parts.append([f"template#{self.n_glue}", "template", section, self.pos, end, None, ""])
            self.n_glue += 1
            self.pos = end

    def take(self, name: str, kind: str, section: str, end: int, message=None, part="") -> None:
        self.parts.append([name, kind, section, self.pos, end, message, part])
        self.pos = end

    def expect(self, marker: str, where: str) -> int:
        """Position just after the next ``marker``; glue up to there is left for glue_until."""
        i = self.text.find(marker, self.pos)
        if i < 0:
            raise AttributionError(f"{where}: expected {marker!r} in the rendered prompt after "
                                   f"character {self.pos}; is this the ChatML template the recording names?")
        return i + len(marker)

    def content(self, content: str, name: str, kind: str, section: str, where: str, **kw) -> None:
        if not self.text.startswith(content, self.pos):
            raise AttributionError(f"{where}: its text is not where the template should have put it "
                                   f"(character {self.pos})")
        self.take(name, kind, section, self.pos + len(content), **kw)


def cut_characters(text: str, messages: list[dict], tools: list[dict] | None):
    """Character ranges of the blocks of ``text`` (the rendered request), plus tool-definition ranges."""
    conv, conv_tools = server_messages(messages), server_tools(tools)
    cut = _Cutter(text)
    first = 0
    has_memory = False  # one memory block per request: in the system text or in a user message
    tool_ranges = []
    if conv_tools or conv[0]["role"] == "system":
        if not text.startswith(f"{BOS}system\n"):
            raise AttributionError(f"the rendered prompt does not start with {BOS}system; "
                                   "is this the ChatML template the recording names?")
        cut.glue_until(len(f"{BOS}system\n"), "system")
        if conv[0]["role"] == "system":
            first = 1
            pieces = split_system_prompt(conv[0]["content"]) or [("system", conv[0]["content"])]
            has_memory = any(name == "memory_body" for name, _ in pieces)
            for name, piece in pieces:
                cut.content(piece, name, "system", "system", "messages[0] (system)", message=0)
        if conv_tools:
            end = text.find(EOS, cut.pos)
            if end < 0:
                raise AttributionError("the tools section has no end-of-turn token after it")
            section_start = cut.pos
            cursor = section_start
            for tool in conv_tools:  # each definition as the template prints it: one tojson line
                js = llama_cpp_tojson(tool)
                i = text.find(js, cursor, end)
                if i < 0:
                    raise AttributionError(f"tool {tool['function']['name']!r}: its definition is not in the tools section")
                tool_ranges.append((f"tool:{tool['function']['name']}", i, i + len(js)))
                cursor = i + len(js)
            cut.take("tools", "tools", "tools", end)
            # the header text goes with the first definition, the trailer with the last (API blocks)
            if tool_ranges:
                tool_ranges[0] = (tool_ranges[0][0], section_start, tool_ranges[0][2])
                tool_ranges[-1] = (tool_ranges[-1][0], tool_ranges[-1][1], end)
                for j in range(1, len(tool_ranges)):
                    tool_ranges[j] = (tool_ranges[j][0], tool_ranges[j - 1][2], tool_ranges[j][2])

    for i in range(first, len(conv)):
        msg, where = conv[i], f"messages[{i}] ({conv[i]['role']})"
        role = msg["role"]
        if role in ("user", "system"):
            cut.glue_until(cut.expect(f"{BOS}{role}\n", where), "message")
            pieces = split_memory_message(msg["content"]) if role == "user" and not has_memory else None
            has_memory = has_memory or pieces is not None
            for name, piece in pieces or [(None, msg["content"])]:
                cut.content(piece, name or f"{role}#{i}", "message", "message", where, message=i)
        elif role == "tool":
            cut.glue_until(cut.expect("<tool_response>\n", where), "message")
            cut.content(msg["content"], f"tool#{i}", "message", "message", where, message=i, part="tool_result")
        elif role == "assistant":
            cut.glue_until(cut.expect(f"{BOS}assistant\n", where), "message")
            end = text.find(EOS, cut.pos)
            if end < 0:
                raise AttributionError(f"{where}: no end-of-turn token after it")
            if msg["content"].split("</think>")[-1].strip() not in text[cut.pos:end]:
                raise AttributionError(f"{where}: its text is not inside its turn")
            cut.take(f"assistant#{i}", "message", "message", end, message=i,
                     part="tool_use" if msg.get("tool_calls") else "")
        else:
            raise AttributionError(f"{where}: role {role!r} is not one the template renders")
    cut.glue_until(len(text), "message")
    return cut.parts, tool_ranges


def attribute(template_text: str, tokenizer, messages: list[dict], tools: list[dict] | None = None,
              **render_options) -> Attribution:
    """Render and tokenize one request and name the block of every token (see module docstring)."""
    text = render_chat(template_text, messages, tools, **render_options)
    parts, tool_ranges = cut_characters(text, messages, tools)
    spans = text_token_spans(tokenizer, text)
    starts = [s for _, s, _ in spans]

    def token_index(char: int) -> int:
        # tokens whose first character lies before `char` belong to earlier blocks
        return bisect.bisect_left(starts, char)

    blocks = tuple(BlockSpan(name, kind, section, cs, ce, token_index(cs), token_index(ce), msg, part)
                   for name, kind, section, cs, ce, msg, part in parts)
    tool_spans = tuple(BlockSpan(name, "tools", "tools", cs, ce, token_index(cs), token_index(ce))
                       for name, cs, ce in tool_ranges)
    att = Attribution(text, tuple(i for i, _, _ in spans), tuple((s, e) for _, s, e in spans), blocks, tool_spans)
    check_tiling(att)
    return att


def check_tiling(att: Attribution) -> None:
    """Blocks must cover every token exactly once, in order; raise AttributionError otherwise."""
    pos = 0
    for b in att.blocks:
        if b.start != pos or b.end < b.start:
            raise AttributionError(f"block {b.name!r} covers tokens {b.start}..{b.end}, expected to start at {pos}")
        pos = b.end
    if pos != len(att.ids):
        raise AttributionError(f"blocks end at token {pos}, the prompt has {len(att.ids)}")
    names = [b.name for b in att.blocks]
    if len(set(names)) != len(names):
        raise AttributionError(f"block names repeat: {names}")
