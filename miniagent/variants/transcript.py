"""Lesson A4·3's design: the whole conversation re-rendered into one user message every round.

miniagent sends the conversation as a list of messages and only ever appends to it, so a
request starts with the whole previous request. Some agents build each request as one text
instead: a fixed preamble, a block of working notes, then the transcript so far, written out
again from the stored entries every time (rasbt/mini-coding-agent's ``history_text``). That
lets them shorten the transcript as it grows: the last ``RECENT`` entries are shown in full,
older tool results and messages are cut to a few hundred characters, an old read of a file
that was read again later is left out. Each of those rewrites changes text that the previous
request already carried.

This wrapper goes around the model the loop calls. The loop keeps its session exactly as
always; only the request changes: the system message as it is, then one user message

    Notes:                      (with ``notes=True``: one line per recent tool result)
    - read_file: ...
    Transcript:
    [user] the task
    [tool:read_file] {"path": "README.md"}
    the file, clipped when the entry is old
    ...
    Current request:
    the task

The tool definitions still go in the request's ``tools``, as with the message list; the
assistant's tool calls appear only through their results, as in the design it follows.
"""
from __future__ import annotations

import json

RECENT = 6          # entries at the end of the transcript shown in full
OLD_TOOL_CHARS = 180   # an older tool result keeps this many characters
OLD_TEXT_CHARS = 220   # an older user or assistant message keeps this many
RECENT_CHARS = 900     # even a recent entry is cut here
NOTES = 5           # tool results the notes block keeps, newest last
NOTE_CHARS = 120    # characters of each note
READS = {"read_file"}
WRITES = {"edit_file", "write_file"}


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how many were cut."""
    return text if len(text) <= limit else f"{text[:limit]}\n...[{len(text) - limit} more characters]"


def entries(messages: list[dict]) -> list[dict]:
    """The transcript's entries: the user and assistant texts, and each tool result with its call.

    An assistant message that calls tools is not an entry of its own: its calls are shown with
    their results. A message that is neither (the system prompt) is not part of the transcript.
    """
    calls, out = {}, []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            for call in message["tool_calls"]:
                calls[call["id"]] = call["function"]
        elif role == "tool":
            function = calls.get(message.get("tool_call_id"))
            if function is None:
                raise ValueError(f"tool result {message.get('tool_call_id')!r} answers no call in the transcript")
            try:
                args = json.loads(function["arguments"] or "{}")
            except json.JSONDecodeError:
                args = {"arguments": function["arguments"]}
            out.append({"role": "tool", "name": function["name"], "args": args, "content": str(message["content"])})
        elif role in ("user", "assistant"):
            out.append({"role": role, "content": str(message.get("content") or "")})
    return out


def transcript(items: list[dict], recent_entries: int = RECENT) -> str:
    """The entries as text: the last ``recent_entries`` in full, older ones clipped, old repeated reads left out."""
    lines, seen_reads = [], set()
    first_recent = max(0, len(items) - recent_entries)
    for i, item in enumerate(items):
        recent = i >= first_recent
        if item["role"] == "tool":
            path = str(item["args"].get("path", ""))
            if item["name"] in WRITES:
                seen_reads.discard(path)  # the file changed: a later read is new again
            elif item["name"] in READS and not recent:
                if path in seen_reads:
                    continue  # the same file was read before, and the older read is still shown
                seen_reads.add(path)
            lines.append(f"[tool:{item['name']}] {json.dumps(item['args'], sort_keys=True)}")
            lines.append(clip(item["content"], RECENT_CHARS if recent else OLD_TOOL_CHARS))
        else:
            lines.append(f"[{item['role']}] {clip(item['content'], RECENT_CHARS if recent else OLD_TEXT_CHARS)}")
    return "\n".join(lines) or "(empty)"


def notes(items: list[dict]) -> str:
    """The last ``NOTES`` tool results, one line each: the working notes that move every round."""
    tools = [item for item in items if item["role"] == "tool"][-NOTES:]
    lines = [f"- {item['name']}: {clip(' '.join(item['content'].split()), NOTE_CHARS)}" for item in tools]
    return "Notes:\n" + ("\n".join(lines) or "- none")


def render(messages: list[dict], with_notes: bool = False, recent_entries: int = RECENT) -> list[dict]:
    """The request's messages: the system message(s) as they are, then the rest as one user message."""
    system = [m for m in messages if m.get("role") == "system"]
    items = entries(messages)
    tasks = [item["content"] for item in items if item["role"] == "user"]
    if not tasks:
        raise ValueError("the conversation has no user message to render")
    parts = ([notes(items)] if with_notes else []) + ["Transcript:\n" + transcript(items, recent_entries),
                                                       "Current request:\n" + tasks[-1]]
    return system + [{"role": "user", "content": "\n\n".join(parts)}]


class RenderedTranscript:
    """A model for the loop: renders the conversation into one user message, then asks ``model``."""

    def __init__(self, model, with_notes: bool = False):
        self.model, self.with_notes = model, with_notes

    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params):
        return self.model.complete(render(messages, self.with_notes), tools, **params)
