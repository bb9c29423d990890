"""What one request is made of: its tokens by kind of content, and where a given text sits.

    from prefixlab.cache import calculator, composition
    replay = calculator.prepare(recording)
    att, call = replay.attributions[i], recording.calls[i]
    composition.tokens_by_part(att, call.request["messages"])  # {"base": 118, "agents_md": 52, ...}
    composition.find(att, rule_text)                           # [Occurrence(block="agents_md", ...)]

The parts (``PARTS``, in prompt order) group the blocks of ``prefixlab.cache.attribution``:

    base       the base prompt                      agents_md  the AGENTS.md block
    memory     the memory header and body, in the   tools      the tool definitions
               system prompt or in a user message
    summary    a compaction's summary message       history    every other message (the task too)
    template   the chat template's own tokens (turn markers, tool-call tags)
    skills     the skills block (miniagent.skills: the index, or every skill's text inline)

A summary is the user message miniagent's compaction writes (it starts with
``miniagent.compaction.SUMMARY_HEADER``). A system text that is not miniagent's three blocks
counts as ``base``. The parts of a request add up to its ``prompt_tokens``.
"""
from __future__ import annotations

from dataclasses import dataclass

from miniagent.compaction import SUMMARY_HEADER

from .attribution import Attribution, BlockSpan

PARTS = ("base", "agents_md", "memory", "tools", "history", "summary", "template", "skills")


def part_of(block: BlockSpan, messages: list[dict]) -> str:
    """The part a block belongs to (see the module docstring)."""
    if block.kind == "template":
        return "template"
    if block.kind == "tools":
        return "tools"
    if block.name in ("memory_header", "memory_body"):
        return "memory"  # in the system prompt, or in a user message (modes after-tools, retrieve)
    if block.kind == "system":
        return block.name if block.name in ("agents_md", "skills") else "base"
    message = messages[block.message] if block.message is not None else {}
    if message.get("role") == "user" and str(message.get("content", "")).startswith(SUMMARY_HEADER):
        return "summary"
    return "history"


def tokens_by_part(att: Attribution, messages: list[dict]) -> dict[str, int]:
    """Tokens of each part, every part present (0 when absent), in ``PARTS`` order."""
    out = dict.fromkeys(PARTS, 0)
    for block in att.blocks:
        out[part_of(block, messages)] += len(block)
    return out


@dataclass(frozen=True)
class Occurrence:
    """One place ``text`` appears in a rendered request."""

    block: str   # the block that holds its first character
    part: str    # that block's part
    start: int   # first token that overlaps the text
    end: int     # one past the last such token

    @property
    def tokens(self) -> int:
        return self.end - self.start


def find(att: Attribution, text: str, messages: list[dict] | None = None) -> list[Occurrence]:
    """Every place ``text`` appears, character for character, in the rendered request.

    ``messages`` (the request's) is only needed to tell a summary from other history.
    """
    if not text:
        raise ValueError("find() needs a non-empty text")
    out, pos = [], att.text.find(text)
    while pos >= 0:
        end_char = pos + len(text)
        tokens = [i for i, (s, e) in enumerate(att.offsets) if s < end_char and e > pos]
        block = next(b for b in att.blocks if b.char_start <= pos < b.char_end)
        out.append(Occurrence(block.name, part_of(block, messages or []), tokens[0], tokens[-1] + 1))
        pos = att.text.find(text, pos + 1)
    return out
